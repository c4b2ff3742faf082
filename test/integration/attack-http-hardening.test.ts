/**
 * Black box (issue 11, item 5): the web server runs in an agent process
 * and is probed as an attacker would. Every answer, the UI, the API, the
 * NSClient++ legacy routes, 403, 404, 413, 400 (bad JSON, and a request
 * Node's parser refuses) included, carries Content-Security-Policy,
 * nosniff and no-referrer. A forged `Host: evil.example:1` does not flow
 * into the `_url` links, while the names the server answers to (localhost,
 * its own address, the machine's host name, `public hosts`) do. Error
 * answers, settings problems, the log API and script failures show no
 * absolute path of the machine. A client that declares 1000 bytes of
 * body, sends 10 and closes is logged as that (AGENT_WARN_HTTP_BODY_ABORTED),
 * not as an internal error, and the agent keeps serving.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { encode } from '../../src/core/plugin/codec.js';
import { editSettingsFile } from '../../src/settings/store/edit-ini.js';
import { startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { rawHttps, webRequest, type WebResponse } from '../helpers/web-client.js';
import { inRange } from '../../src/in-range.js';
import { defined } from '../helpers/defined.js';

const PW = 'root-pw';
const CSP = "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

void describe('HTTP hardening (agent process)', () => {
  let agent: AgentProcess;
  let base = '';
  let port = 0;
  const made = new Teardown();

  before(async () => {
    agent = made.add(
      await startAgent({
        ini: `[/modules]
WEBServer = enabled
CheckHelpers = enabled
CheckExternalScripts = enabled

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = ${PW}
allowed hosts = 127.0.0.1

[/settings/external scripts]
allow arguments = 1

[/settings/external scripts/scripts]
check_missing = missing.sh
check_here = ok.sh
`,
        files: { 'scripts/ok.sh': '#!/bin/sh\necho fine\n' },
      }),
      (a) => a.stop(),
    );
    chmodSync(join(agent.dir, 'scripts', 'ok.sh'), 0o755);
    base = inRange(await agent.waitForLog(/web server listening on (https:\/\/127\.0\.0\.1:\d+)/), 1);
    port = Number(new URL(base).port);
  });
  after(() => made.close());

  const root = (path: string, init: Parameters<typeof webRequest>[1] = {}): Promise<WebResponse> =>
    webRequest(`${base}${path}`, { user: 'root', password: PW, ...init });
  const hardened = (
    res: { status: number; headers: Record<string, string | string[] | undefined> },
    what: string,
  ): void => {
    assert.equal(res.headers['content-security-policy'], CSP, `${what} (${res.status}): Content-Security-Policy`);
    assert.equal(res.headers['x-content-type-options'], 'nosniff', `${what} (${res.status}): nosniff`);
    assert.equal(res.headers['referrer-policy'], 'no-referrer', `${what} (${res.status}): Referrer-Policy`);
  };

  void it('sends the security headers on every answer: UI, API, legacy routes and errors', async () => {
    const ui = await webRequest(`${base}/`);
    assert.equal(ui.status, 200);
    hardened(ui, 'the UI page');
    const etag = String(ui.headers.etag);
    const cached = await webRequest(`${base}/`, { headers: { 'if-none-match': etag } });
    assert.equal(cached.status, 304);
    hardened(cached, 'a 304 of the UI');
    hardened(await webRequest(`${base}/app.js`), 'a UI script');
    hardened(await root('/api/v1/info'), 'an API answer');
    const forbidden = await webRequest(`${base}/api/v1/info`);
    assert.equal(forbidden.status, 403);
    hardened(forbidden, 'a 403 without credentials');
    const wrong = await webRequest(`${base}/api/v1/info`, { user: 'root', password: 'wrong' });
    assert.equal(wrong.status, 403);
    hardened(wrong, 'a 403 with a wrong password');
    const missing = await root('/api/v1/nothing-here');
    assert.equal(missing.status, 404);
    hardened(missing, 'an API 404');
    const uiMissing = await webRequest(`${base}/nothing-here.js`);
    assert.equal(uiMissing.status, 404);
    hardened(uiMissing, 'a 404 outside the API');
    const tooLarge = await root('/api/v1/logs', { method: 'POST', body: 'x'.repeat(2_000_000) });
    assert.equal(tooLarge.status, 413);
    hardened(tooLarge, 'a 413');
    const badJson = await root('/api/v1/logs', { method: 'POST', body: '{not json' });
    assert.equal(badJson.status, 400);
    hardened(badJson, 'a 400 for bad JSON');
    const alive = await webRequest(`${base}/core/isalive`);
    assert.equal(alive.status, 200);
    hardened(alive, 'legacy /core/isalive');
    const legacy = await root('/query/check_ok');
    assert.equal(legacy.status, 200);
    hardened(legacy, 'legacy GET /query/{cmd}');
    const pb = await root('/query.pb', {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: Buffer.from(
        encode('QueryRequestMessage', { header: { type: 1, version: 1 }, payload: [{ command: 'check_ok' }] }),
      ),
    });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers['content-type'], 'application/x-protobuf');
    hardened(pb, 'legacy POST /query.pb');
    const parserRefusal = await rawHttps(port, 'GET /\u0085 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    assert.match(parserRefusal, /^HTTP\/1\.1 400 Bad Request\r\n/);
    assert.match(parserRefusal, new RegExp(`\r\nContent-Security-Policy: ${CSP}\r\n`));
    assert.match(parserRefusal, /\r\nX-Content-Type-Options: nosniff\r\n/);
    assert.match(parserRefusal, /\r\nReferrer-Policy: no-referrer\r\n/);
  });

  void it('keeps a forged Host out of the _url links and uses the names it answers to', async () => {
    const links = async (host: string): Promise<string> =>
      defined((await root('/api/v1', { headers: { host } })).json<Record<string, string>>().queries_url);
    assert.equal(
      await links('evil.example:1'),
      `${base}/api/v1/queries`,
      'a foreign Host falls back to the local address',
    );
    assert.equal(await links(`evil.example:${port}`), `${base}/api/v1/queries`);
    assert.equal(
      await links('127.0.0.1:1'),
      `${base}/api/v1/queries`,
      'the own address on another port is not the listener',
    );
    assert.equal(await links(`localhost:${port}`), `https://localhost:${port}/api/v1/queries`);
    assert.equal(await links(`127.0.0.1:${port}`), `https://127.0.0.1:${port}/api/v1/queries`);
    assert.equal(await links(`${hostname()}:${port}`), `https://${hostname()}:${port}/api/v1/queries`);
    const queries = (await root('/api/v1/queries', { headers: { host: 'evil.example:1' } })).json<
      Array<Record<string, string>>
    >();
    const urls = queries.flatMap((q) =>
      Object.entries(q)
        .filter(([k]) => k.endsWith('_url'))
        .map(([, v]) => v),
    );
    assert.ok(urls.length > 0);
    assert.deepEqual(
      urls.filter((u) => u.includes('evil')),
      [],
      'no link of /api/v1/queries names the forged host',
    );
    const logs = await root('/api/v1/logs', { headers: { host: 'evil.example:1' } });
    assert.doesNotMatch(String(logs.headers.link), /evil/);

    // A name set in public hosts (a reverse proxy's) is answered to on any port, and is the fallback for foreign names.
    const mark = agent.mark();
    await editSettingsFile(agent.settingsFile, [
      { op: 'set', section: '/settings/WEB/server', key: 'public hosts', value: 'monitor.example.org' },
    ]);
    await agent.waitForLog(/public hosts/, 10_000, mark);
    let proxied = '';
    for (let i = 0; i < 100 && proxied !== 'https://monitor.example.org/api/v1/queries'; i++) {
      proxied = await links('monitor.example.org');
      if (proxied !== 'https://monitor.example.org/api/v1/queries') await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(proxied, 'https://monitor.example.org/api/v1/queries');
    assert.equal(await links('evil.example:1'), `https://monitor.example.org:${port}/api/v1/queries`);
  });

  void it('shows no absolute path of the machine in errors, settings problems, logs or script failures', async () => {
    const dir = agent.dir;
    const script = await root('/api/v1/queries/check_missing/commands/execute');
    assert.equal(script.status, 200);
    assert.match(script.body, /Failed to run check_missing \(missing\.sh\): no such file \(ENOENT\)/);
    assert.ok(!script.body.includes(dir), script.body);

    // A broken settings file: its problems, and the 409 of an API edit, name files relative to the settings folder.
    const mark = agent.mark();
    await editSettingsFile(agent.settingsFile, [
      { op: 'set', section: '/includes', key: 'more', value: join(dir, 'not-here.ini') },
    ]);
    await agent.waitForLog(/AGENT_ERR_INCLUDE_MISSING/, 10_000, mark);
    const status = await root('/api/v1/settings/status');
    const problems = status.json<{ problems: Array<{ message: string; file: string }> }>().problems;
    assert.ok(
      problems.some((p) => p.message === 'cannot include not-here.ini: no such file' && p.file === 'agent.ini'),
      JSON.stringify(problems),
    );
    const edit = await root('/api/v1/settings', {
      method: 'PUT',
      body: JSON.stringify({ path: '/settings/WEB/server', key: 'timeout', value: '5' }),
    });
    assert.equal(edit.status, 409);
    assert.match(edit.json<{ error: string }>().error, /^settings file agent\.ini is invalid/);
    // The status names the settings file itself (`file`, for the admin); its problems and warnings show no path.
    const { file: _file, ...rest } = status.json<Record<string, unknown>>();
    assert.ok(!JSON.stringify(rest).includes(dir), 'settings status problems show no absolute path');
    for (const [what, res] of [
      ['a refused edit', edit],
      ['the log', await root('/api/v1/logs?per_page=500')],
      ['the legacy log', await root('/log/messages')],
    ] as const) {
      assert.ok(!res.body.includes(dir), `${what} shows no absolute path: ${res.body.slice(0, 2000)}`);
    }
  });

  void it('logs a client that aborts its request body as that, and keeps serving', async () => {
    const mark = agent.mark();
    const auth = Buffer.from(`root:${PW}`).toString('base64');
    await rawHttps(
      port,
      `POST /api/v1/logs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic ${auth}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"message"`,
      true,
    );
    const line = await agent.waitForLog(
      /warning +agent:\S+: AGENT_WARN_HTTP_BODY_ABORTED: POST \/api\/v1\/logs from 127\.0\.0\.1: the client closed the connection after 10 bytes of the request body \(Content-Length: 1000\)/,
      5000,
      mark,
    );
    assert.ok(line);
    assert.equal((await root('/api/v1/info')).status, 200, 'still serving');
    assert.doesNotMatch(agent.logs().slice(mark), /internal error|AGENT_ERR_HTTP_INTERNAL/);
  });
});
