/**
 * Black box: live behaviour of the web server while the agent process runs.
 * Paging the log through Link URLs only; a password change and a new user
 * (through `config-agent web`, editing the file) applied with no restart; the
 * failed-authentication limit; allowed hosts edited live; a port change
 * rebinding; disabling WEBServer closing the listener; a generated root
 * password printed once. Every wait is a bounded poll.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { parseLinks, webRequest, type WebRequestOptions, type WebResponse } from '../helpers/web-client.js';
import { runWebCommand } from '../../src/cli/web.js';
import { editSettingsFile } from '../../src/settings/store/edit-ini.js';
import { inRange } from '../../src/in-range.js';

const INI = `# live web test
[/modules]
WEBServer = enabled
CheckHelpers = enabled

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = first-pw
allowed hosts = 127.0.0.1
auth rate limit max failures = 4
auth rate limit block seconds = 10

[/settings/web/roles]
viewer = public, info.get
`;

/** Poll `probe` until it returns true; bounded by count and time. */
async function eventually(what: string, probe: () => Promise<boolean>, ms = 8000): Promise<void> {
  const end = Date.now() + ms;
  for (let i = 0; i < 400 && Date.now() < end; i++) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting for ${what}`);
}

void describe('web server live changes (agent process)', () => {
  let agent: AgentProcess;
  let base: string;
  let ca: string;
  const made = new Teardown();
  after(() => made.close());
  const get = (path: string, opts: WebRequestOptions = {}): Promise<WebResponse> =>
    webRequest(path.startsWith('https:') ? path : `${base}${path}`, { ca, ...opts });

  before(async () => {
    agent = made.add(await startAgent({ ini: INI }), (a) => a.stop());
    base = inRange(await agent.waitForLog(/web server listening on (https:\/\/127\.0\.0\.1:\d+)/), 1);
    ca = readFileSync(join(agent.dir, 'security', 'certificate.pem'), 'utf8');
  });

  void it('pages the log newest first, following only the Link URLs', async () => {
    // Refusals from disallowed addresses log one warning per address (a minute's repeats are counted) and do not
    // count as failed logins.
    for (let i = 0; i < 7; i++)
      assert.equal((await get('/api/v1/info', { localAddress: `127.0.0.${2 + i}` })).status, 403);
    let url: string | undefined = `${base}/api/v1/logs?per_page=3&level=warning`;
    const seen: number[] = [];
    let total = -1;
    let pages = 0;
    for (; url !== undefined && pages < 50; pages++) {
      const res = await get(url, { user: 'root', password: 'first-pw' });
      assert.equal(res.status, 200);
      const links = parseLinks(res.headers.link as string);
      assert.ok(links.first && links.last, 'first and last are always there');
      if (pages > 0) assert.ok(links.prev, 'prev after page 1');
      else assert.equal(links.prev, undefined);
      total = Number(res.headers['x-pagination-count']);
      assert.equal(res.headers['x-pagination-limit'], '3');
      const items = res.json<{ index: number; level: string; message: string }[]>();
      assert.ok(items.length <= 3);
      for (const item of items) {
        assert.equal(item.level, 'warning');
        seen.push(item.index);
      }
      const pageUrl: string = url;
      url = links.next;
      if (url === undefined) assert.equal(links.last, pageUrl, 'the page without next is the last one');
    }
    assert.ok(pages >= 3, `several pages (${pages})`);
    assert.equal(seen.length, total);
    assert.deepEqual(
      [...seen].sort((a, b) => b - a),
      seen,
      'newest first',
    );
    assert.equal(new Set(seen).size, seen.length, 'no entry twice');
  });

  void it('applies a password change made with config-agent web password, without a restart', async () => {
    const rc = await runWebCommand(['password', '--settings', agent.settingsFile, '--set', 'second-pw']);
    assert.equal(rc, 0);
    await eventually(
      'the new password',
      async () => (await get('/api/v1/info', { user: 'root', password: 'second-pw' })).status === 200,
    );
    assert.equal((await get('/api/v1/info', { user: 'root', password: 'first-pw' })).status, 403);
  });

  void it('applies a user added with config-agent web add-user, without a restart', async () => {
    const rc = await runWebCommand([
      'add-user',
      '--settings',
      agent.settingsFile,
      '--user',
      'carol',
      '--password',
      'carol-pw',
      '--role',
      'viewer',
    ]);
    assert.equal(rc, 0);
    assert.match(
      readFileSync(agent.settingsFile, 'utf8'),
      /# live web test[\s\S]*\[\/settings\/web\/users\/carol\]\npassword = pbkdf2-sha256\$/,
    );
    await eventually(
      'the new user',
      async () => (await get('/api/v1/info', { user: 'carol', password: 'carol-pw' })).status === 200,
    );
    assert.equal(
      (await get('/api/v1/logs', { user: 'carol', password: 'carol-pw' })).status,
      403,
      'viewer has no logs.list',
    );
  });

  void it('refuses an address for a while after repeated failed logins', async () => {
    // In parallel, each a different guess: four sequential 600,000-iteration checks can outlast the 3 s window on a loaded machine.
    const guesses = await Promise.all(
      [1, 2, 3, 4].map((i) => get('/api/v1/info', { user: 'carol', password: `wrong-${i}` })),
    );
    assert.deepEqual(
      guesses.map((g) => g.status),
      [403, 403, 403, 403],
    );
    assert.equal(
      (await get('/api/v1/info', { user: 'root', password: 'second-pw' })).status,
      403,
      'blocked even with good credentials',
    );
    await eventually(
      'the end of the block',
      async () => (await get('/api/v1/info', { user: 'root', password: 'second-pw' })).status === 200,
      30_000,
    );
  });

  void it('applies an allowed hosts edit to the next requests', async () => {
    assert.equal(
      (await get('/api/v1/info', { user: 'root', password: 'second-pw', localAddress: '127.0.0.2' })).status,
      403,
    );
    await editSettingsFile(agent.settingsFile, [
      { op: 'set', section: '/settings/WEB/server', key: 'allowed hosts', value: '127.0.0.1, 127.0.0.0/24' },
    ]);
    await eventually(
      '127.0.0.2 allowed',
      async () =>
        (await get('/api/v1/info', { user: 'root', password: 'second-pw', localAddress: '127.0.0.2' })).status === 200,
    );
  });

  void it('rebinds when the port changes, then closes the listener when WEBServer is disabled', async () => {
    const port = await freePort(); // the edit under test names a new fixed port (port 0 again would not rebind)
    const mark = agent.mark();
    await editSettingsFile(agent.settingsFile, [
      { op: 'set', section: '/settings/WEB/server', key: 'port', value: `${port}s` },
    ]);
    await agent.waitForLog(new RegExp(`web server listening on https://127\\.0\\.0\\.1:${port}`), 8000, mark);
    const oldBase = base;
    base = `https://127.0.0.1:${port}`;
    assert.equal((await get('/api/v1/info', { user: 'root', password: 'second-pw' })).status, 200);
    await eventually('the old listener closed', async () =>
      get(`${oldBase}/api/v1/info`, { user: 'root', password: 'second-pw' }).then(
        () => false,
        () => true,
      ),
    );
    const rc = await runWebCommand([
      'install',
      '--settings',
      agent.settingsFile,
      '--password',
      'second-pw',
      '--port',
      String(port),
    ]);
    assert.equal(rc, 0, 'install on an installed server changes nothing that matters');
    await editSettingsFile(agent.settingsFile, [
      { op: 'set', section: '/modules', key: 'WEBServer', value: 'disabled' },
    ]);
    await eventually('the listener closed', async () =>
      get('/api/v1/info', { user: 'root', password: 'second-pw' }).then(
        () => false,
        () => true,
      ),
    );
  });
});

void describe('web server without a password (agent process)', () => {
  const made = new Teardown();
  after(() => made.close());

  void it('generates a root password, prints it once, and accepts it', async () => {
    const agent = made.add(
      await startAgent({
        ini: '[/modules]\nWEBServer = enabled\n\n[/settings/WEB/server]\nport = 0s\nbind to = 127.0.0.1\n',
      }),
      (a) => a.stop(),
    );
    const base = (await agent.waitForLog(/web server listening on (https:\/\/127\.0\.0\.1:\d+)/))[1];
    const pw = inRange(await agent.waitForLog(/web password for user root: (\S+)/), 1);
    assert.ok(pw.length >= 20);
    assert.equal(agent.logs().split('web password for user root').length, 2, 'printed once');
    const ca = readFileSync(join(agent.dir, 'security', 'certificate.pem'), 'utf8');
    assert.equal((await webRequest(`${base}/api/v1/info`, { ca, user: 'root', password: pw })).status, 200);
    assert.equal((await webRequest(`${base}/api/v1/info`, { ca, user: 'root', password: '' })).status, 403);
  });
});
