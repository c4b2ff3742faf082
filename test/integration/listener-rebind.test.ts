/**
 * `certificate = other.pem` (a certificate whose key is not the one in
 * force) on each of the three listeners of a running agent: the settings
 * API refuses the edit (422, the problem at its line), and an edit of the
 * file itself is not applied by the listener: it keeps serving with its
 * previous certificate, valid queries keep answering on every port, and the
 * status says "kept previous settings" with the same problem line that
 * `config-agent settings validate` prints (src/protocols/listener/managed-listener.ts,
 * src/settings/store/tls-checks.ts). The agent runs as a process; loopback only.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { listenerPort, replaceFile, startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { agentQuery, nrpeQuery, presentedName as presented } from '../helpers/abuse-peers.js';
import { certDir, type CertDir, type CertFiles } from '../helpers/agent-certs.js';
import { Teardown } from '../helpers/teardown.js';
import { runAgentCli } from '../helpers/run-cli.js';
import { webRequest } from '../helpers/web-client.js';
import { waitUntil } from '../helpers/wait-until.js';

const PASSWORD = 'rebind-test-password';

type Listener = 'web' | 'remote' | 'agent';

void describe('certificate = other.pem on a running agent (process)', () => {
  let certs: CertDir;
  let first: CertFiles;
  let other: CertFiles;
  let agent: AgentProcess;
  let ports: Record<Listener, number>;
  /** Which listeners have `certificate = other.pem` in the file so far. */
  const edited = new Set<Listener>();
  const made = new Teardown();

  const ini = (): string => `[/modules]
CheckHelpers = enabled
WEBServer = enabled
RemoteServer = enabled
AgentServer = enabled

[/settings/default]
password = ${PASSWORD}
allowed hosts = 127.0.0.1

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
${edited.has('web') ? `certificate = ${other.cert}\n` : ''}
[/settings/remote/server]
port = 0
bind to = 127.0.0.1
certificate = ${edited.has('remote') ? other.cert : first.cert}
certificate key = ${first.key}

[/settings/agent/server]
port = 0
bind to = 127.0.0.1
certificate = ${edited.has('agent') ? other.cert : first.cert}
certificate key = ${first.key}
`;

  const web = (path: string, init: { method?: string; body?: string } = {}) =>
    webRequest(`https://127.0.0.1:${ports.web}${path}`, {
      user: 'root',
      password: PASSWORD,
      timeoutMs: 10_000,
      ...init,
      ...(init.body ? { headers: { 'content-type': 'application/json' } } : {}),
    });

  /** Every listener answers a valid query, each with its first certificate. */
  const allServing = async (): Promise<void> => {
    assert.equal((await web('/api/v1/info')).status, 200);
    const nrpe = await nrpeQuery(ports.remote, 'check_ok');
    assert.equal(nrpe.code, 0, nrpe.out);
    assert.match(await agentQuery(ports.agent, 'check_ok'), /OK|ok/i);
    assert.equal(await presented(ports.web), 'localhost', 'the self-signed web certificate');
    assert.equal(await presented(ports.remote), 'first');
    assert.equal(await presented(ports.agent), 'first');
  };

  before(async () => {
    certs = made.add(certDir(), (c) => c.remove());
    const ca = certs.ca('rebind-ca');
    first = certs.issue(ca, 'first', 'server');
    other = certs.issue(ca, 'other', 'server');
    // Port 0 in the file: the system picks, the log says which (the edits below keep port 0, so the listeners stay).
    agent = made.add(await startAgent({ ini: ini() }), (a) => a.stop());
    ports = {
      web: await webPort(agent),
      remote: await listenerPort(agent, 'RemoteServer'),
      agent: await listenerPort(agent, 'AgentServer'),
    };
  });
  after(() => made.close());

  void it('serves on all three ports with the certificates of the file', async () => {
    await allServing();
  });

  void it('the settings API refuses `certificate = other.pem` (422, the problem at the line of the key) and writes nothing', async () => {
    const before = readFileSync(agent.settingsFile, 'utf8');
    const r = await web('/api/v1/settings/settings/agent/server', {
      method: 'PUT',
      body: JSON.stringify({ key: 'certificate', value: other.cert }),
    });
    assert.equal(r.status, 422, r.body);
    const body = r.json<{ code: string; fields: { field: string; message: string }[] }>();
    assert.equal(body.code, 'AGENT_ERR_HTTP_UNPROCESSABLE');
    assert.deepEqual(body.fields, [
      {
        field: '[/settings/agent/server] certificate key', // HTTP answers name files without the machine's absolute paths (src/hide-paths.ts).
        message: `line 25: AGENT_ERR_TLS_KEY_MISMATCH: the private key in ${basename(first.key)} does not belong to the certificate ${basename(other.cert)}`,
      },
    ]);
    assert.equal(readFileSync(agent.settingsFile, 'utf8'), before);
    await allServing();
  });

  for (const [listener, module, what] of [
    ['web', 'WEBServer', 'the web server'],
    ['remote', 'RemoteServer', 'the NRPE server'],
    ['agent', 'AgentServer', 'the agent-protocol server'],
  ] as const) {
    void it(`${module}: an edit of the file is kept out, the old listener serves, the status says kept previous settings`, async () => {
      edited.add(listener);
      const m = agent.mark();
      replaceFile(agent.settingsFile, ini());
      const logged = await agent.waitForLog(
        new RegExp(`cannot move ${what} to [^\\n]*AGENT_ERR_TLS_KEY_MISMATCH[^\\n]*kept previous settings`),
        20_000,
        m,
      );
      // The log names the same line `config-agent settings validate` prints.
      const validate = await runAgentCli(['settings', 'validate', agent.settingsFile]);
      assert.equal(validate.code, 1);
      const line = validate.stdout
        .split('\n')
        .find((l) =>
          l.includes(
            module === 'WEBServer'
              ? '[/settings/WEB/server]'
              : `[${module === 'RemoteServer' ? '/settings/remote/server' : '/settings/agent/server'}]`,
          ),
        );
      assert.ok(line, validate.stdout);
      const where = /^(.*?):(\d+):\d+: error (AGENT_ERR_TLS_KEY_MISMATCH \[[^\]]+\] certificate(?: key)?: .*)$/.exec(
        line,
      );
      assert.ok(where, line);
      assert.ok(logged[0].includes(`${where[1]}:${where[2]}: ${where[3]}`), `${logged[0]}\n${line}`);
      const status = (await web('/api/v1/settings/status')).json<{
        lastResult: string;
        modules: { name: string; loaded: boolean; outcome: string; error?: string }[];
      }>();
      assert.equal(status.lastResult, 'partial');
      const mod = status.modules.find((x) => x.name === module);
      assert.equal(mod?.loaded, true);
      assert.equal(mod.outcome, 'failed');
      assert.match(mod.error ?? '', /AGENT_ERR_TLS_KEY_MISMATCH.*kept previous settings/);
      await allServing();
    });
  }

  void it('the key fitting the file is taken at once (certificate key = other.key on every listener)', async () => {
    const fixed = ini()
      .replaceAll(`certificate key = ${first.key}`, `certificate key = ${other.key}`)
      .replace(
        `certificate = ${other.cert}\n`,
        `certificate = ${other.cert}\ncertificate key = ${join(certs.dir, 'other.key')}\n`,
      );
    replaceFile(agent.settingsFile, fixed);
    await waitUntil(
      async () =>
        (await presented(ports.web)) === 'other' &&
        (await presented(ports.remote)) === 'other' &&
        (await presented(ports.agent)) === 'other',
      20_000,
      'other.pem on every listener',
    ).catch(() => undefined);
    assert.equal(await presented(ports.web), 'other');
    assert.equal(await presented(ports.remote), 'other');
    assert.equal(await presented(ports.agent), 'other');
    const status = (await web('/api/v1/settings/status')).json<{
      lastResult: string;
      modules: { name: string; outcome: string }[];
    }>();
    for (const name of ['WEBServer', 'RemoteServer', 'AgentServer'])
      assert.notEqual(status.modules.find((x) => x.name === name)?.outcome, 'failed', name);
    assert.equal((await nrpeQuery(ports.remote, 'check_ok')).code, 0);
    assert.match(await agentQuery(ports.agent, 'check_ok'), /OK|ok/i);
  });
});
