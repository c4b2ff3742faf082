/**
 * Black box, as a client written for NSClient++'s REST API would use the
 * agent (process, HTTPS): /api/v2 and X-HTTP-Method-Override,
 * execute_nagios and text mode with NSClient++'s status codes, the log
 * routes, the settings API (the file keeps its comments and changes by a
 * small diff; a result that would not validate is refused), and roles
 * written for NSClient++ (seeded client, its privilege strings, the legacy
 * warning).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { replaceFile, type AgentProcess } from '../helpers/agent-process.js';
import { startWebAgent, waitUntil } from '../helpers/nscp-clients.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest, type WebRequestOptions } from '../helpers/web-client.js';

const INI = `; NSClient++ API test
[/modules]
WEBServer = enabled
CheckHelpers = enabled
CheckExternalScripts = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = api-secret
auth rate limit max failures = 0

; roles written for NSClient++
[/settings/web/roles]
old = legacy, login.get
scriptreader = scripts.list.runtimes, scripts.lists.CheckExternalScripts

[/settings/web/users/carl]
password = carl-pw
role = client

[/settings/web/users/sam]
password = sam-pw
role = scriptreader

[/settings/external scripts/scripts]
hello = /bin/echo hello
`;

void describe('NSClient++ REST clients against the agent (agent process)', () => {
  let agent: AgentProcess;
  let base: string;
  let ca: string;

  const made = new Teardown();
  after(() => made.close());

  before(async () => {
    ({ agent, base, ca } = made.add(await startWebAgent({ ini: INI }), (w) => w.agent.stop()));
  });

  const root = (path: string, opts: WebRequestOptions = {}) =>
    webRequest(`${base}${path}`, { ca, user: 'root', password: 'api-secret', ...opts });
  const json = (method: string, path: string, body: unknown) =>
    root(path, { method, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

  void it('serves the API under /api/v2 too, and honours X-HTTP-Method-Override', async () => {
    const v2 = await root('/api/v2/queries/check_ok');
    assert.equal(v2.status, 200);
    const q = v2.json<{ name: string; execute_url: string; execute_nagios_url: string }>();
    assert.equal(q.name, 'check_ok');
    assert.match(q.execute_nagios_url, /\/api\/v1\/queries\/check_ok\/commands\/execute_nagios$/);
    assert.equal((await root('/api/v2/info')).status, 200);
    // POST overridden to DELETE empties the log; a repeated header is ignored (no route for POST: 404).
    const cleared = await root('/api/v2/logs', { method: 'POST', headers: { 'x-http-method-override': 'DELETE' } });
    assert.equal(cleared.status, 200);
    assert.deepEqual(cleared.json(), { count: 0 });
    const twice = await root('/api/v1/modules', {
      method: 'POST',
      headers: { 'x-http-method-override': ['GET', 'GET'] },
    });
    assert.equal(twice.status, 404);
    const overridden = await root('/api/v1/modules', { method: 'POST', headers: { 'X-HTTP-Method-Override': 'get' } });
    assert.equal(overridden.status, 200);
  });

  void it('answers execute_nagios as strings, and text mode with 200 or NSClient++ statuses by setting', async () => {
    const res = await root('/api/v1/queries/check_critical/commands/execute_nagios?disk%20full');
    assert.equal(res.status, 200);
    assert.deepEqual(res.json(), {
      command: 'check_critical',
      result: 'CRITICAL',
      lines: [{ message: 'disk full', perf: '' }],
    });
    const text = await root('/api/v1/queries/check_warning/commands/execute_nagios?warm', {
      headers: { accept: 'text/plain' },
    });
    assert.equal(text.status, 200);
    assert.equal(text.headers['x-check-result'], 'WARNING');
    assert.equal(text.body, 'warm\n');

    const before = readFileSync(agent.settingsFile, 'utf8');
    replaceFile(
      agent.settingsFile,
      before.replace('password = api-secret', 'password = api-secret\nnsclient status codes = true'),
    );
    const statusOf = async (q: string) =>
      (await root(`/api/v1/queries/${q}/commands/execute`, { headers: { accept: 'text/plain' } })).status;
    await waitUntil(async () => (await statusOf('check_critical')) === 500);
    assert.deepEqual(
      await Promise.all(['check_ok', 'check_warning', 'check_critical', 'no_such_query'].map(statusOf)),
      [200, 202, 500, 503],
    );
    const nagios = await root('/api/v1/queries/check_warning/commands/execute_nagios', {
      headers: { accept: 'text/plain' },
    });
    assert.equal(nagios.status, 202);
    assert.equal((await root('/api/v1/queries/check_critical/commands/execute')).status, 200, 'JSON mode stays 200');
    replaceFile(agent.settingsFile, before);
    await waitUntil(async () => (await statusOf('check_critical')) === 200);
  });

  void it('follows the log: POST /api/v1/logs, /logs/since with X-Log-Index, /logs/status, DELETE', async () => {
    assert.equal((await root('/api/v1/logs', { method: 'DELETE' })).status, 200);
    const posted = await json('POST', '/api/v1/logs', {
      message: 'first\nforged line',
      level: 'error',
      file: 'monitor.ps1',
      line: 12,
    });
    assert.equal(posted.status, 200);
    const index = posted.json<{ index: number }>().index;
    assert.ok(index > 0);
    const since = await root(`/api/v1/logs/since?since=${index - 1}`);
    assert.equal(since.status, 200);
    const items =
      since.json<{ index: number; message: string; level: string; file: string; line: number; namespace: string }[]>();
    assert.equal(items[0]?.index, index);
    assert.equal(items[0].message, 'first\\nforged line', 'control characters are escaped');
    assert.equal(items[0].level, 'error');
    assert.equal(items[0].file, 'monitor.ps1');
    assert.equal(items[0].line, 12);
    assert.equal(Number(since.headers['x-log-index']), items[items.length - 1]?.index);
    const none = await root(`/api/v1/logs/since?since=${Number(since.headers['x-log-index']) + 1000}`);
    assert.deepEqual(none.json(), []);
    const status = await root('/api/v1/logs/status');
    assert.equal(status.json<{ errors: number; last_error: string }>().errors >= 1, true);
    assert.equal(status.json<{ last_error: string }>().last_error, 'first\\nforged line');
    assert.equal((await json('POST', '/api/v1/logs', { level: 'loud' })).status, 422);
    assert.equal((await root('/api/v1/logs/since?since=-1')).status, 400);
  });

  void it('lists effective settings with secrets hidden, for the whole file or a path', async () => {
    const all = await root('/api/v1/settings');
    assert.equal(all.status, 200);
    const entries = all.json<{ path: string; key: string; value: string }[]>();
    const find = (path: string, key: string) => entries.find((e) => e.path === path && e.key === key)?.value;
    assert.equal(find('/settings/WEB/server', 'password'), '******');
    assert.equal(find('/settings/WEB/server', 'bind to'), '127.0.0.1');
    assert.equal(find('/settings/WEB/server', 'max body size'), '1048576', 'defaults are listed');
    assert.equal(find('/settings/web/users/carl', 'password'), '******');
    assert.equal(find('/settings/web/users/carl', 'role'), 'client');
    assert.doesNotMatch(all.body, /api-secret|carl-pw|sam-pw/);
    const web = await root('/api/v1/settings/settings/web');
    const paths = new Set(web.json<{ path: string }[]>().map((e) => e.path));
    assert.ok(
      paths.has('/settings/WEB/server') && paths.has('/settings/web/roles') && paths.has('/settings/web/users/carl'),
    );
    assert.ok(![...paths].some((p) => !p.toLowerCase().startsWith('/settings/web')));
    assert.equal((await root('/api/v1/settings/settings/nothing/here')).status, 404);
  });

  void it('edits the file through PUT and DELETE as small diffs, and refuses an edit that would not validate', async () => {
    const original = readFileSync(agent.settingsFile, 'utf8');
    const put = await json('PUT', '/api/v1/settings/settings/WEB/server', {
      key: 'auth rate limit block seconds',
      value: 30,
    });
    assert.deepEqual(put.json(), { status: 'success', keys: 1, files: [agent.settingsFile] });
    const afterPut = readFileSync(agent.settingsFile, 'utf8');
    assert.equal(
      afterPut,
      original.replace(
        'auth rate limit max failures = 0\n',
        'auth rate limit max failures = 0\nauth rate limit block seconds = 30\n',
      ),
      'one line added, comments kept',
    );

    const many = await json('PUT', '/api/v1/settings', [
      { path: '/settings/log', key: 'level', value: 'debug' },
      { path: '/settings/WEB/server', key: 'auth rate limit block seconds' },
    ]);
    assert.deepEqual(many.json(), { status: 'success', keys: 2, files: [agent.settingsFile] });
    const afterMany = readFileSync(agent.settingsFile, 'utf8');
    assert.equal(afterMany, `${original}\n[/settings/log]\nlevel = debug\n`);
    const shown = await root('/api/v1/settings/settings/log');
    await waitUntil(async () =>
      (await root('/api/v1/settings/settings/log'))
        .json<{ key: string; value: string }[]>()
        .some((e) => e.key === 'level' && e.value === 'debug'),
    );
    assert.equal(shown.status, 200);

    const bad = await json('PUT', '/api/v1/settings/settings/WEB/server', { key: 'port', value: 'eighty' });
    assert.equal(bad.status, 422);
    const fields = bad.json<{ fields: { field: string; message: string }[] }>().fields;
    assert.ok(
      fields.some((f) => f.field === '[/settings/WEB/server] port'),
      JSON.stringify(fields),
    );
    const typo = await json('PUT', '/api/v1/settings/settings/WEB/server', { key: 'pasword', value: 'x' });
    assert.equal(typo.status, 422);
    assert.match(typo.body, /did you mean|password/);
    assert.equal(readFileSync(agent.settingsFile, 'utf8'), afterMany, 'refused edits write nothing');
    assert.equal((await json('PUT', '/api/v1/settings', { key: 'x', value: '1' })).status, 422, 'a path is needed');

    const delKey = await root('/api/v1/settings/settings/log?key=level', { method: 'DELETE' });
    assert.deepEqual(delKey.json(), { status: 'success', keys: 1, recursive: true, files: [agent.settingsFile] });
    const delSection = await root('/api/v1/settings/settings/log', { method: 'DELETE' });
    assert.deepEqual(delSection.json(), { status: 'success', keys: 0, recursive: true, files: [agent.settingsFile] });
    assert.equal(readFileSync(agent.settingsFile, 'utf8'), original, 'back to the original bytes');
    assert.equal((await root('/api/v1/settings/settings/log', { method: 'DELETE' })).status, 404);
    assert.equal((await root('/api/v1/settings/settings/WEB/server?key=nothing', { method: 'DELETE' })).status, 404);
    assert.equal((await root('/api/v1/settings', { method: 'DELETE' })).status, 400);

    // Recursive removal of a user section through a body.
    const delBody = await root('/api/v1/settings/settings/web/users', {
      method: 'DELETE',
      body: JSON.stringify({ path: '/settings/web/users/sam' }),
      headers: { 'content-type': 'application/json' },
    });
    assert.deepEqual(delBody.json(), { status: 'success', keys: 2, recursive: true, files: [agent.settingsFile] });
    assert.doesNotMatch(readFileSync(agent.settingsFile, 'utf8'), /\[\/settings\/web\/users\/sam\]/);
    await waitUntil(
      async () => (await webRequest(`${base}/api/v1/scripts`, { ca, user: 'sam', password: 'sam-pw' })).status === 403,
    );
    replaceFile(agent.settingsFile, original);
    await waitUntil(
      async () => (await webRequest(`${base}/api/v1/scripts`, { ca, user: 'sam', password: 'sam-pw' })).status === 200,
    );
    const cmd = await json('POST', '/api/v1/settings/command', { command: 'reload' });
    assert.deepEqual(cmd.json(), { status: 'success', result: 'ok' });
    assert.equal((await json('POST', '/api/v1/settings/command', { command: 'explode' })).status, 404);
  });

  void it('understands roles written for NSClient++: the seeded client, its privilege strings, the legacy warning', async () => {
    const carl = (path: string) => webRequest(`${base}${path}`, { ca, user: 'carl', password: 'carl-pw' });
    assert.equal((await carl('/api/v1/info/version')).status, 200, 'info.get.version');
    assert.deepEqual((await carl('/api/v1/login')).json(), { user: 'carl' });
    assert.equal((await carl('/api/v1/queries/check_ok/commands/execute')).status, 200);
    assert.equal((await carl('/api/v1/modules')).status, 200);
    assert.equal((await carl('/api/v1/logs')).status, 403);
    assert.equal((await carl('/query/check_ok')).status, 403, 'client has no legacy grant');
    const sam = (path: string) => webRequest(`${base}${path}`, { ca, user: 'sam', password: 'sam-pw' });
    assert.equal((await sam('/api/v1/scripts')).status, 200, 'scripts.list.runtimes');
    assert.equal((await sam('/api/v1/scripts/ext')).status, 200, 'scripts.lists.CheckExternalScripts');
    assert.equal((await sam('/api/v1/scripts/ext/hello')).status, 403, 'no scripts.get.CheckExternalScripts');
    assert.match(agent.logs(), /AGENT_WARN_ROLE_LEGACY.*SECURITY: role "old" holds the legacy grant/);
  });
});
