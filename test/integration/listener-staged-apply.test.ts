/**
 * The managed listener (src/protocols/listener/managed-listener.ts) on a
 * running agent, for each of WEBServer, RemoteServer and AgentServer, all on
 * port 0 (the system picks; the tests read the ports from the log):
 * - a renewed certificate written over the files on disk is served to new
 *   connections without a settings edit; a broken one is refused with
 *   AGENT_WARN_TLS_RELOAD and the previous certificate stays;
 * - a change that cannot be taken (the new port is held by another socket)
 *   leaves every part of the old policy in force: password, allowed hosts,
 *   allow arguments, allowed queries, connection limits and certificate.
 * Real sockets on loopback, real TLS, Debian's check_nrpe.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { listenerPort, replaceFile, startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { agentQuery, openIdle, presentedName as presented } from '../helpers/abuse-peers.js';
import { certDir, type CertDir, type CertFiles } from '../helpers/agent-certs.js';
import { Teardown } from '../helpers/teardown.js';
import { checkNrpe } from '../helpers/nrpe-daemon.js';
import { webRequest } from '../helpers/web-client.js';

const OLD_PASSWORD = 'staged-old-password';
const NEW_PASSWORD = 'staged-new-password';

interface Wanted {
  ports: { web: number; remote: number; agent: number };
  password: string;
  hosts: string;
  perAddress: number;
  args: boolean;
  queries: string;
  cert: string;
  key: string;
}

/** The keys the three listener sections share here. */
const common = (w: Wanted, port: string): string => `port = ${port}
bind to = 127.0.0.1
certificate = ${w.cert}
certificate key = ${w.key}
max connections per address = ${w.perAddress}
`;

const ini = (w: Wanted): string => `[/modules]
CheckHelpers = enabled
WEBServer = enabled
RemoteServer = enabled
AgentServer = enabled

[/settings/default]
password = ${w.password}
allowed hosts = ${w.hosts}

[/settings/WEB/server]
${common(w, `${w.ports.web}s`)}
[/settings/remote/server]
${common(w, String(w.ports.remote))}allow arguments = ${w.args}
allowed queries = ${w.queries}

[/settings/agent/server]
${common(w, String(w.ports.agent))}allowed queries = ${w.queries}
`;

void describe('managed listeners: certificates renewed on disk, failed moves keep every part of the old policy (process)', () => {
  let certs: CertDir;
  let first: CertFiles;
  let second: CertFiles;
  let other: CertFiles;
  let agent: AgentProcess;
  let live: { cert: string; key: string };
  let old: Wanted;
  const ports = { web: 0, remote: 0, agent: 0 };
  const made = new Teardown();

  /** Writes the PEM files of `from` over the live files, each by rename, one right after the other. */
  const renew = (from: { cert: string; key: string }): void => {
    replaceFile(live.key, readFileSync(from.key, 'utf8'));
    replaceFile(live.cert, readFileSync(from.cert, 'utf8'));
  };
  const names = async (): Promise<string[]> => [
    await presented(ports.web),
    await presented(ports.remote),
    await presented(ports.agent),
  ];

  before(async () => {
    certs = made.add(certDir(), (c) => c.remove());
    const ca = certs.ca('staged-ca');
    first = certs.issue(ca, 'first', 'server');
    second = certs.issue(ca, 'second', 'server');
    other = certs.issue(ca, 'other', 'server');
    live = { cert: join(certs.dir, 'live-cert.pem'), key: join(certs.dir, 'live-key.pem') };
    copyFileSync(first.cert, live.cert);
    copyFileSync(first.key, live.key);
    old = {
      ports: { web: 0, remote: 0, agent: 0 },
      password: OLD_PASSWORD,
      hosts: '127.0.0.1',
      perAddress: 64,
      args: true,
      queries: '*',
      cert: live.cert,
      key: live.key,
    };
    agent = made.add(await startAgent({ ini: ini(old) }), (a) => a.stop());
    ports.web = await webPort(agent);
    ports.remote = await listenerPort(agent, 'RemoteServer');
    ports.agent = await listenerPort(agent, 'AgentServer');
  });
  after(() => made.close());

  void it('port 0: each listener logs the port the system gave it, serves there, and the API reports it', async () => {
    assert.equal(new Set([ports.web, ports.remote, ports.agent]).size, 3);
    for (const p of Object.values(ports)) assert.ok(p > 0);
    assert.deepEqual(await names(), ['first', 'first', 'first']);
    // The API reports the real ports too: per module and in the settings status.
    const api = (path: string) =>
      webRequest(`https://127.0.0.1:${ports.web}${path}`, { user: 'root', password: OLD_PASSWORD, timeoutMs: 10_000 });
    const status = (await api('/api/v1/settings/status')).json<{
      modules: { name: string; listening?: { address: string; port: number } }[];
    }>();
    for (const [name, port] of [
      ['WEBServer', ports.web],
      ['RemoteServer', ports.remote],
      ['AgentServer', ports.agent],
    ] as const) {
      assert.deepEqual(
        (await api(`/api/v1/modules/${name}`)).json<{ listening?: unknown }>().listening,
        { address: '127.0.0.1', port },
        name,
      );
      assert.deepEqual(status.modules.find((m) => m.name === name)?.listening, { address: '127.0.0.1', port }, name);
    }
  });

  void it('a certificate renewed on disk is served without a settings edit', async () => {
    const m = agent.mark();
    renew(second);
    for (const what of ['the web server', 'the NRPE server', 'the agent-protocol server']) {
      await agent.waitForLog(new RegExp(`${what}: new certificate from [^\\n]*live-cert\\.pem`), 15_000, m);
    }
    assert.deepEqual(await names(), ['second', 'second', 'second']);
    assert.equal((await checkNrpe(ports.remote, ['-c', 'check_ok'])).code, 0);
    assert.match(await agentQuery(ports.agent, 'check_ok'), /ok/i);
  });

  void it('a broken file on disk is refused (AGENT_WARN_TLS_RELOAD) and the previous certificate stays', async () => {
    const m = agent.mark();
    writeFileSync(live.cert, 'not a certificate\n');
    for (const what of ['the web server', 'the NRPE server', 'the agent-protocol server']) {
      await agent.waitForLog(
        new RegExp(`AGENT_WARN_TLS_RELOAD: ${what}: the TLS files changed on disk but cannot be used`),
        15_000,
        m,
      );
    }
    assert.deepEqual(await names(), ['second', 'second', 'second']);
    // Back to the renewed files (the same material: nothing to swap).
    renew(second);
  });

  void it('a move to a port another socket holds: kept previous settings, and every part of the old policy stays in force', async () => {
    const blocker: Server = createServer();
    const busy = await new Promise<number>((res) =>
      blocker.listen(0, '127.0.0.1', () => res((blocker.address() as { port: number }).port)),
    );
    try {
      const m = agent.mark();
      replaceFile(
        agent.settingsFile,
        ini({
          ports: { web: busy, remote: busy, agent: busy },
          password: NEW_PASSWORD,
          hosts: '10.1.2.3',
          perAddress: 1,
          args: false,
          queries: 'check_version',
          cert: other.cert,
          key: other.key,
        }),
      );
      for (const what of ['the web server to https', 'the NRPE server to', 'the agent-protocol server to']) {
        await agent.waitForLog(
          new RegExp(`cannot move ${what}[^\\n]*EADDRINUSE[^\\n]*kept previous settings`),
          20_000,
          m,
        );
      }
      // One idle connection from this address on each listener: a limit of 1 per address would refuse the query after it.
      const idle = [await openIdle(ports.web, 1), await openIdle(ports.remote, 1), await openIdle(ports.agent, 1)];
      try {
        // WEBServer: the old password (and allowed hosts 127.0.0.1), not the new one.
        const url = `https://127.0.0.1:${ports.web}/api/v1/info`;
        assert.equal((await webRequest(url, { user: 'root', password: OLD_PASSWORD, timeoutMs: 10_000 })).status, 200);
        assert.equal((await webRequest(url, { user: 'root', password: NEW_PASSWORD, timeoutMs: 10_000 })).status, 403);
        // RemoteServer: arguments still allowed, check_ok still in the allowed queries, 127.0.0.1 still allowed.
        const nrpe = await checkNrpe(ports.remote, ['-c', 'check_ok', '-a', 'message=still here']);
        assert.equal(nrpe.code, 0, nrpe.out);
        assert.match(nrpe.out, /still here/);
        // AgentServer: check_ok still allowed.
        assert.match(await agentQuery(ports.agent, 'check_ok'), /ok/i);
        for (const peers of idle) assert.equal(peers.closed(), 0, 'the idle connection is still open');
      } finally {
        for (const peers of idle) peers.destroy();
      }
      // The old certificate, not other.pem.
      assert.deepEqual(await names(), ['second', 'second', 'second']);
      const status = (
        await webRequest(`https://127.0.0.1:${ports.web}/api/v1/settings/status`, {
          user: 'root',
          password: OLD_PASSWORD,
          timeoutMs: 10_000,
        })
      ).json<{ modules: { name: string; loaded: boolean; outcome: string }[] }>();
      for (const name of ['WEBServer', 'RemoteServer', 'AgentServer']) {
        const mod = status.modules.find((x) => x.name === name);
        assert.deepEqual([mod?.loaded, mod?.outcome], [true, 'failed'], name);
      }
    } finally {
      replaceFile(agent.settingsFile, ini(old));
      await new Promise<void>((res) => blocker.close(() => res()));
    }
  });
});
