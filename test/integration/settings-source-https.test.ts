/**
 * `[/settings/source]` against Debian's nginx on loopback, the config-agent run as
 * a process and asked through its API: the pulled file is a layer under
 * the local file (local keys win), found by `${hostname}`; a change is
 * pulled on `POST /api/v1/settings/pull`, SIGHUP and `config-agent settings pull`;
 * an unchanged file costs a 304 (nginx's access log says so); a 404, a
 * 500, an HTML page, a 50 MB body, a slow body, a body cut off mid-way
 * (nginx relaying an upstream that closes early) and an invalid file are
 * each refused with the settings in force kept and the failure in the
 * status and metrics; a redirect is followed; the last good pull is cached
 * 0600 and used at the next start when nginx is down.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replaceFile, startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { serve, startNginx, type Nginx } from '../helpers/nginx-daemon.js';
import { runAgentCli } from '../helpers/run-cli.js';
import { webRequest } from '../helpers/web-client.js';
import type { SourceState as Source } from '../helpers/source-client.js';
import { waitUntil } from '../helpers/wait-until.js';

const PASSWORD = 'source-test-password';
const HOST = 'web01.example.org';

/** A pulled file; its length differs with `size`: nginx's ETag is the file's mtime and size, and the test writes several in one second. */
const pulled = (size: number): string =>
  `; revision ${'.'.repeat(size / 100)}\n[/settings/log]\nbuffer size = ${size}\nlevel = error\n`;

void describe('[/settings/source] over https/http from nginx (agent as a process)', () => {
  let nginx: Nginx;
  let upstream: Server;
  let state: string;
  let agent: AgentProcess;
  let port: number;

  const ini = (path: string, extra = '', interval = 3600): string => `[/modules]
WEBServer = enabled

[/paths]
state = ${state}

[/settings/default]
password = ${PASSWORD}
allowed hosts = 127.0.0.1

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1

[/settings/log]
level = debug

[/settings/source]
url = ${nginx.base}${path}
interval = ${interval}
timeout = 2
${extra}`;

  const api = (path: string, method = 'GET'): ReturnType<typeof webRequest> =>
    webRequest(`https://127.0.0.1:${port}${path}`, { method, user: 'root', password: PASSWORD, timeoutMs: 15_000 });
  const source = async (): Promise<Source> => (await api('/api/v1/settings/status')).json<{ source: Source }>().source;
  const value = async (path: string, key: string): Promise<string | undefined> =>
    (await api(`/api/v1/settings${path}`)).json<{ key: string; value: string }[]>().find((e) => e.key === key)?.value;
  const pull = async (): Promise<Source> =>
    (await api('/api/v1/settings/pull', 'POST')).json<{ source: Source }>().source;
  /** Point the local file at another path of nginx and wait for the pull that follows the reload. */
  const pointAt = async (path: string, extra = ''): Promise<Source> => {
    const before = (await source()).pulls;
    replaceFile(agent.settingsFile, ini(path, extra));
    let s = await source();
    await waitUntil(
      async () => {
        s = await source();
        return (
          s.url.endsWith(path) &&
          s.pulls.changed + s.pulls.unchanged + s.pulls.failed > before.changed + before.unchanged + before.failed
        );
      },
      15_000,
      `a pull of ${path}`,
    );
    return s;
  };

  before(async () => {
    // An upstream that promises 1000 bytes and closes after a few: nginx relays the cut-off body.
    upstream = createServer((sock) => {
      sock.once('data', () =>
        sock.end(
          'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n[/settings/log]\nbuffer size = 9',
        ),
      );
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const up = (upstream.address() as { port: number }).port;
    nginx = await startNginx({
      locations: `
    location = /broken.ini { return 500; }
    location = /moved.ini { return 301 /hosts/${HOST}.ini; }
    location = /slow.ini { limit_rate 20; }
    location = /cut.ini { proxy_pass http://127.0.0.1:${up}; proxy_buffering off; }`,
    });
    serve(nginx, `hosts/${HOST}.ini`, pulled(1234));
    serve(nginx, 'page.html', pulled(2222));
    serve(nginx, 'invalid.ini', '[/settings/log]\nbuffer size = many\n');
    serve(nginx, 'slow.ini', `${pulled(3333)}${'; padding\n'.repeat(200)}`);
    serve(nginx, 'big.ini', Buffer.alloc(50 * 1024 * 1024, 0x3b));
    state = mkdtempSync(join(tmpdir(), 'source-state-'));
    agent = await startAgent({ ini: ini('/hosts/${hostname}.ini'), env: { AGENT_HOSTNAME: HOST } });
    port = await webPort(agent);
  });

  after(async () => {
    await agent.stop();
    await nginx.close();
    upstream.close();
    rmSync(state, { recursive: true, force: true });
  });

  void it('pulls at start (nothing cached): the pulled keys apply under the local ones; cached 0600 with the ETag', async () => {
    await waitUntil(async () => (await source()).revision !== null, 15_000, 'the first pull');
    const s = await source();
    assert.equal(s.url, `${nginx.base}/hosts/${HOST}.ini`);
    assert.match(s.revision ?? '', /^"[0-9a-f]+-[0-9a-f]+"$/, 'the ETag nginx sent');
    assert.equal(s.lastError, null);
    assert.equal(await value('/settings/log', 'buffer size'), '1234');
    assert.equal(await value('/settings/log', 'level'), 'debug', 'the local file overrides the pulled one');
    assert.equal(statSync(join(state, 'settings-source', 'pulled.ini')).mode & 0o777, 0o600);
    const metrics = (await api('/api/v1/metrics')).body;
    assert.match(metrics, /agent_settings_source_info\{url="[^"]+",revision="\\"[0-9a-f-]+\\"",from_cache="0"\} 1/);
    assert.match(metrics, /agent_settings_last_pull_success_timestamp_seconds [1-9]/);
    assert.match(metrics, /agent_settings_pull_failures_total 0/);
  });

  void it('an unchanged file costs a 304; a changed one is applied on POST /api/v1/settings/pull', async () => {
    const first = await source();
    const again = await pull();
    assert.equal(again.pulls.unchanged, first.pulls.unchanged + 1);
    // nginx writes its access line once the answer is sent: it may land just after the agent has it.
    await waitUntil(
      () => nginx.accessLines().some((l) => l.startsWith(`304 GET /hosts/${HOST}.ini`)),
      5_000,
      'nginx logging a 304',
    );
    serve(nginx, `hosts/${HOST}.ini`, pulled(1500));
    const changed = await pull();
    assert.notEqual(changed.revision, first.revision);
    assert.equal(await value('/settings/log', 'buffer size'), '1500');
  });

  void it('SIGHUP pulls at once', async () => {
    serve(nginx, `hosts/${HOST}.ini`, pulled(1600));
    const from = agent.mark();
    agent.proc.kill('SIGHUP');
    await agent.waitForLog(/settings source \S+: applied revision/, 15_000, from);
    assert.equal(await value('/settings/log', 'buffer size'), '1600');
  });

  for (const [path, why, extra] of [
    ['/missing.ini', /HTTP 404/, ''],
    ['/broken.ini', /HTTP 500/, ''],
    ['/page.html', /content type text\/html/, ''],
    ['/big.ini', /more than max size 4194304/, ''],
    ['/slow.ini', /no complete answer within 2000 ms/, ''],
    ['/cut.ini', /cut off after/, ''],
    ['/invalid.ini', /AGENT_ERR_SETTINGS_TYPE|not applied: 1 problem/, ''],
    [`/hosts/${HOST}.ini`, /SHA-256 is [0-9a-f]{64}, not the pinned 0{64}/, `sha256 = ${'0'.repeat(64)}\n`],
  ] as const) {
    void it(`${path}${extra ? ' (pinned sha256)' : ''}: refused, the settings in force kept, the failure shown`, async () => {
      const failedBefore = (await source()).pulls.failed;
      const s = await pointAt(path, extra);
      assert.match(s.lastError ?? '', why);
      assert.equal(s.pulls.failed, failedBefore + 1);
      assert.equal(await value('/settings/log', 'buffer size'), '1600', 'the last good pull stays in force');
      assert.match(
        (await api('/api/v1/metrics')).body,
        new RegExp(`agent_settings_pull_failures_total ${failedBefore + 1}`),
      );
    });
  }

  void it('a redirect is followed', async () => {
    serve(nginx, `hosts/${HOST}.ini`, pulled(1700));
    const s = await pointAt('/moved.ini');
    assert.equal(s.lastError, null);
    assert.equal(await value('/settings/log', 'buffer size'), '1700');
  });

  void it('config-agent settings pull (the CLI) writes the cache, and the running agent applies it', async () => {
    serve(nginx, `hosts/${HOST}.ini`, pulled(1800));
    const r = await runAgentCli(['settings', 'pull', '--settings', agent.settingsFile]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /pulled and cached/);
    await waitUntil(
      async () => (await value('/settings/log', 'buffer size')) === '1800',
      15_000,
      'the CLI pull applied',
    );
    const revision = (await source()).revision ?? '';
    const shown = await runAgentCli([
      'settings',
      'show',
      '--settings',
      agent.settingsFile,
      '--section',
      '/settings/log',
    ]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.ok(shown.stdout.includes(`; source ${nginx.base}/moved.ini: revision ${revision}, pulled `), shown.stdout);
    assert.match(
      shown.stdout,
      /buffer size = 1800 +; state\/settings-source\/pulled\.ini:\d+|buffer size = 1800 +; \S*pulled\.ini:\d+/,
    );
  });

  void it('with nginx down, the next start runs on the cached pull and says so', async () => {
    await agent.stop();
    await nginx.stop();
    agent = await startAgent({ ini: ini('/moved.ini', '', 5) });
    port = await webPort(agent);
    assert.equal(await value('/settings/log', 'buffer size'), '1800');
    const s = await source();
    assert.equal(s.fromCache, true);
    await nginx.start();
    // Back: the next poll (within one interval) answers 304 or the same text.
    await waitUntil(async () => (await source()).lastSuccess !== null, 20_000, 'a poll once nginx is back');
    await agent.waitForLog(/AGENT_WARN_SOURCE_CACHED|starting on the cached pull/, 1000);
  });

  void it('with neither source nor cache, the agent runs on the local file and says so', async () => {
    await agent.stop();
    await nginx.stop();
    rmSync(join(state, 'settings-source'), { recursive: true, force: true });
    writeFileSync(join(state, 'marker'), '');
    agent = await startAgent({ ini: ini('/moved.ini') });
    port = await webPort(agent);
    await agent.waitForLog(/nothing was pulled before: running on the local settings file alone/, 15_000);
    assert.equal(await value('/settings/log', 'buffer size'), '5000');
    await nginx.start();
  });
});
