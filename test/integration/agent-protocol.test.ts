/**
 * Two agent processes talking the agent protocol over TLS with client
 * certificates made here with openssl: query, exec and submit both ways
 * (through each agent's running AgentClient, driven by its web API), channel
 * forwarding, refusals of clients without a certificate or with one from
 * another CA (config-agent client CLI), random bytes at the port, the peer killed
 * mid-request and restarted, and a hot-applied port and CA change.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { connect as tlsConnect } from 'node:tls';
import { freePort, listenerPort, MAIN, replaceFile, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { certDir, type CertDir, type CertFiles } from '../helpers/agent-certs.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest } from '../helpers/web-client.js';
import { inRange } from '../../src/in-range.js';

interface Side {
  serverCert: CertFiles;
  clientCert: CertFiles;
  agentPort: number;
  alias: string;
}

const PASSWORD = 'pw';

function ini(me: Side, peerPort: number, caFile: string, extra = ''): string {
  return `[/modules]
CheckHelpers = enabled
CheckExternalScripts = enabled
AgentServer = enabled
AgentClient = enabled
RemoteServer = enabled
WEBServer = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = ${PASSWORD}

[/settings/remote/server]
port = 0
bind to = 127.0.0.1
submit channel = AGENT

[/settings/external scripts]
timeout = 20

[/settings/external scripts/scripts]
check_sleep = /bin/sh -c "sleep 8; echo slept"

[/settings/agent/server]
port = ${me.agentPort}
bind to = 127.0.0.1
certificate = ${me.serverCert.cert}
certificate key = ${me.serverCert.key}
ca = ${caFile}
verify mode = peer-cert
; peers are authenticated by their certificates: they may run exec commands
allowed exec commands = *
; and read what was submitted here (agent_submissions), which the default (!agent_*) refuses; still no relay
allowed queries = *, !remote_*, !agent_query, !agent_exec, !agent_submit

[/settings/agent/client]
target = peer

[/settings/agent/client/targets/default]
certificate = ${me.clientCert.cert}
certificate key = ${me.clientCert.key}
ca = ${caFile}
verify mode = peer-cert
allowed ciphers = ALL:!ADH:!LOW:!EXP:!MD5:@STRENGTH

[/settings/agent/client/targets/peer]
address = 127.0.0.1:${peerPort}
alias = ${me.alias}
timeout = 5
${extra}`;
}

/** Run `config-agent client ...` as a process; bounded by 20 s. */
function cli(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, 'client', '--settings', '/nonexistent/agent.ini', ...args],
      { timeout: 20_000, env: { ...process.env, AGENT_LOG_LEVEL: 'silent' } },
      (err, stdout) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, out: stdout.trim() });
      },
    );
  });
}

async function webBase(agent: AgentProcess): Promise<string> {
  return inRange(await agent.waitForLog(/web server listening on (https:\/\/127\.0\.0\.1:\d+)/), 1);
}

/** Run a query in a running agent through its web API. */
async function run(
  base: string,
  query: string,
  params: Record<string, string>,
): Promise<{ result: number; message: string }> {
  const qs = Object.entries(params)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join('&');
  const res = await webRequest(`${base}/api/v1/queries/${query}/commands/execute?${qs}`, {
    user: 'root',
    password: PASSWORD,
    timeoutMs: 20_000,
  });
  assert.equal(res.status, 200, res.body);
  const body = res.json<{ result: number; lines: { message: string }[] }>();
  return { result: body.result, message: inRange(body.lines, 0).message };
}

/** Poll until probe is true; bounded by count and time. */
async function eventually(what: string, probe: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  for (let i = 0; i < 200 && Date.now() < end; i++) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`timed out waiting for ${what}`);
}

void describe('agent protocol between two agent processes', () => {
  let certs: CertDir;
  let ca: CertFiles;
  let ca2: CertFiles;
  let otherCa: CertFiles;
  let stranger: CertFiles;
  let a: Side;
  let b: Side;
  let agentA: AgentProcess;
  let agentB: AgentProcess;
  let baseA: string;
  let baseB: string;
  const made = new Teardown();

  before(async () => {
    certs = made.add(certDir(), (c) => c.remove());
    ca = certs.ca('ca');
    ca2 = certs.ca('ca2');
    otherCa = certs.ca('other-ca');
    stranger = certs.issue(otherCa, 'stranger', 'client');
    // Agent ports are fixed before start: each agent's settings name the other's, and B restarts on its own below.
    a = {
      serverCert: certs.issue(ca, 'server-a', 'server'),
      clientCert: certs.issue(ca, 'client-a', 'client'),
      agentPort: await freePort(),
      alias: 'agent-a',
    };
    b = {
      serverCert: certs.issue(ca, 'server-b', 'server'),
      clientCert: certs.issue(ca, 'client-b', 'client'),
      agentPort: await freePort(),
      alias: 'agent-b',
    };
    // Each agent is registered as it is up, so one that started is stopped even when the other failed to.
    [agentA, agentB] = await Promise.all([
      startAgent({ ini: ini(a, b.agentPort, ca.cert) }).then((p) => made.add(p, (x) => x.stop())),
      startAgent({ ini: ini(b, a.agentPort, ca.cert) }).then((p) => made.add(p, (x) => x.stop())),
    ]);
    [baseA, baseB] = await Promise.all([webBase(agentA), webBase(agentB)]);
    await agentA.waitForLog(/AgentServer: listening on 127\.0\.0\.1:\d+ \(TLS, client certificates required\)/);
    await agentB.waitForLog(/AgentServer: listening on 127\.0\.0\.1:\d+ \(TLS, client certificates required\)/);
  });

  after(() => made.close());

  void it('agent_query runs a query on the peer, both ways, with the target from the settings', async () => {
    assert.deepEqual(
      await run(baseA, 'agent_query', { target: 'peer', command: 'check_warning', arguments: 'from a' }),
      { result: 1, message: 'from a' },
    );
    assert.deepEqual(await run(baseB, 'agent_query', { target: 'peer', command: 'check_critical' }), {
      result: 2,
      message: 'CRITICAL: check_critical',
    });
    // An unknown query on the peer is the peer's UNKNOWN answer.
    assert.deepEqual(await run(baseA, 'agent_query', { target: 'peer', command: 'no_such_check' }), {
      result: 3,
      message: 'Unknown command(s): no_such_check',
    });
  });

  void it('agent_exec runs an exec command on the peer, both ways', async () => {
    const ab = await run(baseA, 'agent_exec', { target: 'peer', command: 'CheckExternalScripts', arguments: 'list' });
    assert.equal(ab.result, 0, ab.message);
    assert.match(ab.message, /check_sleep/);
    const ba = await run(baseB, 'agent_exec', { target: 'peer', command: 'no_such_exec' });
    assert.deepEqual(ba, { result: 3, message: 'Unknown command(s): no_such_exec' });
  });

  void it('agent_submit hands a result to the peer, which logs it and lists it in agent_submissions', async () => {
    const sent = await run(baseA, 'agent_submit', {
      target: 'peer',
      alias: 'backup',
      result: 'WARN',
      message: 'late|age=5h',
    });
    assert.equal(sent.result, 0, sent.message);
    assert.match(sent.message, /accepted backup/);
    await agentB.waitForLog(/submission from agent-a: backup WARNING: late\|'age'=5h/);
    await run(baseB, 'agent_submit', { target: 'peer', alias: 'db', result: 'OK', message: 'fine' });
    await agentA.waitForLog(/submission from agent-b: db OK: fine/);
    // A second submission of the same command from the same source replaces the first.
    await run(baseA, 'agent_submit', { target: 'peer', alias: 'backup', result: '0', message: 'done' });
    const list = JSON.parse((await run(baseB, 'agent_submissions', {})).message) as {
      command: string;
      source: string;
      status: string;
      message: string;
    }[];
    assert.deepEqual(
      list.map((s) => [s.command, s.source, s.status, s.message]),
      [['backup', 'agent-a', 'OK', 'done']],
    );
    // Through the protocol too: A asks B for its submissions list.
    const remote = await run(baseA, 'agent_query', { target: 'peer', command: 'agent_submissions' });
    assert.match(remote.message, /"command":"backup"/);
  });

  void it('results submitted on the AGENT channel are forwarded to the target', async () => {
    // A's RemoteServer puts submissions on A's AGENT channel; A's AgentClient forwards them to B.
    const r = await cli([
      'remote_submit',
      '--host',
      '127.0.0.1',
      '--port',
      String(await listenerPort(agentA, 'RemoteServer')),
      '--alias',
      'forwarded',
      '--result',
      'CRIT',
      '--message',
      'via channel',
    ]);
    assert.equal(r.code, 0, r.out);
    await agentB.waitForLog(/submission from agent-a: forwarded CRITICAL: via channel/);
  });

  void it('the command line prints the Nagios form and exits with the status', async () => {
    const args = [
      '--host',
      '127.0.0.1',
      '--port',
      String(b.agentPort),
      '--certificate',
      a.clientCert.cert,
      '--certificate-key',
      a.clientCert.key,
    ];
    assert.deepEqual(await cli(['agent_query', ...args, '--command', 'check_warning', '--arguments', 'cli', 'text']), {
      code: 1,
      out: 'cli text',
    });
    assert.deepEqual(await cli(['agent_exec', ...args, '--command', 'nothing']), {
      code: 3,
      out: 'Unknown command(s): nothing',
    });
    const sub = await cli(['agent_submit', ...args, '--alias', 'cli-svc', '--result', '2', '--message', 'bad']);
    assert.equal(sub.code, 0, sub.out);
    assert.match(sub.out, /^127\.0\.0\.1:\d+: accepted cli-svc$/);
  });

  void it('a client without a certificate, or with one from another CA, is refused with a clear message', async () => {
    const none = await cli([
      'agent_query',
      '--host',
      '127.0.0.1',
      '--port',
      String(b.agentPort),
      '--command',
      'check_ok',
    ]);
    assert.equal(none.code, 3);
    assert.match(none.out, /^agent_query: TLS with 127\.0\.0\.1:\d+ failed: the peer requires a client certificate/);
    const foreign = await cli([
      'agent_query',
      '--host',
      '127.0.0.1',
      '--port',
      String(b.agentPort),
      '--command',
      'check_ok',
      '--certificate',
      stranger.cert,
      '--certificate-key',
      stranger.key,
    ]);
    assert.equal(foreign.code, 3);
    assert.match(
      foreign.out,
      /^agent_query: 127\.0\.0\.1:\d+ closed the connection before answering \(it may have rejected our client certificate/,
    );
    await agentB.waitForLog(/TLS handshake with 127\.0\.0\.1 failed|client certificate rejected|certificate/);
  });

  void it('random bytes at the port close that connection only', async () => {
    await new Promise<void>((resolve) => {
      const s = tlsConnect({ host: '127.0.0.1', port: b.agentPort, rejectUnauthorized: false });
      s.on('error', () => resolve());
      s.on('close', () => resolve());
      s.on('secureConnect', () => s.write(Buffer.from('\x00\xffnot a frame at all, just noise\r\n')));
      setTimeout(() => s.destroy(), 5000).unref();
    });
    assert.deepEqual(await run(baseA, 'agent_query', { target: 'peer', command: 'check_ok' }), {
      result: 0,
      message: 'OK: check_ok',
    });
  });

  void it('the peer killed mid-request is UNKNOWN saying so; after its restart the client reconnects', async () => {
    const pending = run(baseA, 'agent_query', { target: 'peer', command: 'check_sleep' });
    // Long enough for the request to reach B and the script to start.
    await new Promise((r) => setTimeout(r, 700));
    agentB.proc.kill('SIGKILL');
    const answer = await pending;
    assert.equal(answer.result, 3);
    assert.match(
      answer.message,
      /^agent_query: (cannot connect to 127\.0\.0\.1:\d+: connection refused|127\.0\.0\.1:\d+ closed the connection)/,
    );
    await agentB.stop();
    // The stopped one stays registered: a second stop() of it does nothing.
    agentB = made.add(await startAgent({ ini: ini(b, a.agentPort, ca.cert) }), (x) => x.stop());
    baseB = await webBase(agentB);
    assert.deepEqual(await run(baseA, 'agent_query', { target: 'peer', command: 'check_ok' }), {
      result: 0,
      message: 'OK: check_ok',
    });
  });

  void it('a hot-applied port and CA change on the peer: the old client certificate is refused, the updated client carries on', async () => {
    const clientA2 = certs.issue(ca2, 'client-a2', 'client');
    // B: new port, client certificates now from ca2. A: the new address and a ca2 client certificate.
    const b2: Side = { ...b, agentPort: 0 };
    const markB = agentB.mark();
    replaceFile(agentB.settingsFile, ini(b2, a.agentPort, ca2.cert));
    const newPort = await listenerPort(agentB, 'AgentServer', markB);
    const aSettings = ini(a, newPort, ca.cert).replace(
      `certificate = ${a.clientCert.cert}\ncertificate key = ${a.clientCert.key}`,
      `certificate = ${clientA2.cert}\ncertificate key = ${clientA2.key}`,
    );
    replaceFile(agentA.settingsFile, aSettings);
    await eventually(
      'A to reach B on the new port with the new certificate',
      async () => (await run(baseA, 'agent_query', { target: 'peer', command: 'check_ok' })).result === 0,
    );
    const old = await cli([
      'agent_query',
      '--host',
      '127.0.0.1',
      '--port',
      String(newPort),
      '--command',
      'check_ok',
      '--certificate',
      a.clientCert.cert,
      '--certificate-key',
      a.clientCert.key,
    ]);
    assert.equal(old.code, 3);
    assert.match(old.out, /rejected our client certificate/);
    const gone = await cli([
      'agent_query',
      '--host',
      '127.0.0.1',
      '--port',
      String(b.agentPort),
      '--command',
      'check_ok',
      '--retry',
      '0',
    ]);
    assert.match(gone.out, /connection refused/);
  });
});
