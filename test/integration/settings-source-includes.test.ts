/**
 * `[/includes]` naming a remote file (https://, Debian's nginx with TLS
 * and a private CA on loopback), the config-agent run as a process and asked
 * through its API: the include is pulled with the source's guarded puller
 * and settings (ca, max size, timeout), at once when nothing is cached;
 * it stands at its place in the precedence (over the source's pulled file,
 * under the local file); it is cached 0600 in the state folder beside the
 * source's pull and refreshed at each poll (a 304 when unchanged); an
 * oversized, invalid or include-holding text is refused with the last
 * good one kept; at the next start with nginx down its cache is in force
 * and the failed pull warns that it is (AGENT_WARN_SOURCE_CACHED).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { certDir, type CertDir } from '../helpers/agent-certs.js';
import { serve, startNginx, type Nginx } from '../helpers/nginx-daemon.js';
import { bootIni, sourceClient, type SourceClient, type SourceState } from '../helpers/source-client.js';
import { Teardown } from '../helpers/teardown.js';
import { waitUntil } from '../helpers/wait-until.js';

const PASSWORD = 'source-includes-password';
/** The shared file; its length differs with `n` (nginx's ETag is the mtime and size). */
const shared = (n: number): string => `; ${'.'.repeat(n / 100)}\n[/settings/log]\nbuffer size = ${n}\n`;

type WithIncludes = SourceState & {
  includes?: { url: string; revision: string | null; fromCache: boolean; lastError: string | null }[];
};

void describe('[/includes] naming a remote file (nginx over TLS, agent as a process)', () => {
  let certs: CertDir;
  let nginx: Nginx;
  let ca: string;
  let state: string;
  let agent: AgentProcess;
  let client: SourceClient;
  const made = new Teardown();
  after(() => made.close());

  const ini = (): string =>
    bootIni(state, PASSWORD, [
      '[/includes]',
      `shared = ${nginx.httpsBase}/shared/base.ini`,
      '[/settings/source]',
      `url = ${nginx.httpsBase}/hosts/web01.ini`,
      `ca = ${ca}`,
      'max size = 65536',
      'interval = 3600',
      'timeout = 5',
    ]);
  const status = async (): Promise<WithIncludes> =>
    (await client.api('/api/v1/settings/status')).json<{ source: WithIncludes }>().source;
  const pull = async (): Promise<WithIncludes> =>
    (await client.api('/api/v1/settings/pull', 'POST')).json<{ source: WithIncludes }>().source;
  const size = (): Promise<string | undefined> => client.value('/settings/log', 'buffer size');
  // Every agent started is registered: the test that starts a second one stopped the first, and
  // stopping an agent that has exited again is harmless.
  const start = async (): Promise<void> => {
    agent = made.add(await startAgent({ ini: ini() }), (a) => a.stop());
    client = sourceClient(await webPort(agent), PASSWORD);
  };

  before(async () => {
    certs = made.add(certDir(), (c) => c.remove());
    const authority = certs.ca('includes-ca');
    ca = authority.cert;
    nginx = made.add(await startNginx({ tls: certs.issue(authority, 'includes-server', 'server') }), (n) => n.close());
    serve(nginx, 'hosts/web01.ini', '[/settings/log]\nbuffer size = 1000\n');
    serve(nginx, 'shared/base.ini', shared(2000));
    state = mkdtempSync(join(tmpdir(), 'source-includes-'));
    made.defer(() => rmSync(state, { recursive: true, force: true }));
    await start();
  });

  void it('nothing cached: said at start, pulled at once, over the source file, cached 0600 beside it', async () => {
    await agent.waitForLog(/AGENT_WARN_INCLUDE_NOT_PULLED|the remote include \S+ is not pulled yet/, 10_000);
    await waitUntil(async () => (await status()).includes?.[0]?.revision != null, 15_000, 'the include pulled');
    const s = await status();
    assert.equal(s.lastError, null);
    assert.equal(s.includes?.[0]?.url, `${nginx.httpsBase}/shared/base.ini`);
    assert.match(s.includes[0].revision ?? '', /^"[0-9a-f]+-[0-9a-f]+"$/, 'its ETag');
    assert.equal(await size(), '2000', 'the include overrides the source file (1000)');
    const folder = join(state, 'settings-source', 'includes');
    const files = readdirSync(folder).sort();
    assert.equal(files.length, 2, files.join(', '));
    for (const f of files) assert.equal(statSync(join(folder, f)).mode & 0o777, 0o600, f);
  });

  void it('refreshed at each poll: a 304 when unchanged, a change applied', async () => {
    const before = (await status()).pulls;
    const s = await pull();
    assert.equal(s.pulls.unchanged, before.unchanged + 2, 'the source file and the include, both 304');
    await waitUntil(
      () => nginx.accessLines().some((l) => l.startsWith('304 GET /shared/base.ini')),
      5_000,
      "nginx's 304 of the include",
    );
    serve(nginx, 'shared/base.ini', shared(2100));
    const changed = await pull();
    assert.equal(changed.lastError, null);
    assert.equal(await size(), '2100');
  });

  for (const [what, body, why] of [
    ['an oversized text', `${shared(2200)}${';'.repeat(70_000)}\n`, /more than max size 65536/],
    ['an invalid text', '[/settings/log]\nbuffer size = many\n', /not applied: 1 problem/],
    ['a text that includes', '[/includes]\nx = /etc/passwd\n', /cannot hold \[\/includes\]/],
  ] as const) {
    void it(`${what} is refused, the last good include kept`, async () => {
      serve(nginx, 'shared/base.ini', body);
      const from = agent.mark();
      const s = await pull();
      assert.match(s.lastError ?? '', why);
      assert.match(s.includes?.[0]?.lastError ?? '', why);
      await agent.waitForLog(/error +agent:settings-source: AGENT_ERR_SOURCE_(PULL|INVALID): /, 5_000, from);
      assert.equal(await size(), '2100');
    });
  }

  void it('next start with nginx down: the cached include is in force, and the failed pull says so', async () => {
    serve(nginx, 'shared/base.ini', shared(2100));
    await agent.stop();
    await nginx.stop();
    await start();
    await agent.waitForLog(/remote include \S+\/shared\/base\.ini: starting on the cached pull, revision "/, 5_000);
    assert.equal(await size(), '2100', 'the cached include, at start');
    const from = agent.mark();
    const s = await pull();
    assert.match(s.includes?.[0]?.lastError ?? '', /ECONNREFUSED|connect/);
    assert.equal(s.includes?.[0]?.fromCache, true);
    await agent.waitForLog(
      new RegExp(
        `the settings source ${nginx.httpsBase}/shared/base\\.ini cannot be reached .*starting on the cached pull`,
      ),
      5_000,
      from,
    );
    assert.equal(await size(), '2100');
    await nginx.start();
    assert.equal((await pull()).lastError, null);
  });
});
