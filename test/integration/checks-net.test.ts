/**
 * The network checks and check_index/check_dummy reached the three ways a
 * monitoring server reaches the agent: Debian's check_nrpe against our
 * RemoteServer, `config-agent client agent_query` against our AgentServer (TLS with
 * client certificates), and the web API (which the web UI's query list
 * uses). The agent runs as a process; the peers it probes are loopback
 * listeners in this test process. A change of [/settings/net] applies in
 * place.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { startAgent, listenerPort, replaceFile, MAIN, type AgentProcess } from '../helpers/agent-process.js';
import { checkNrpe } from '../helpers/nrpe-daemon.js';
import { certDir, type CertDir, type CertFiles } from '../helpers/agent-certs.js';
import { webRequest } from '../helpers/web-client.js';
import { dnsPeer, httpPeer, ntpPeer, tcpPeer, type Peer } from '../helpers/net-peers.js';
import { Teardown } from '../helpers/teardown.js';
import { inRange } from '../../src/in-range.js';

const PASSWORD = 'pw';
let agent: AgentProcess;
let nrpePort: number;
let agentPort: number;
let base: string;
let certs: CertDir;
let client: CertFiles;
let tcp: Peer;
let http: Peer;
let dns: Peer;
let ntp: Peer;
const made = new Teardown();

function ini(maxConcurrent: number, server: CertFiles, ca: string): string {
  return `[/modules]
CheckNet = enabled
CheckHelpers = enabled
RemoteServer = enabled
AgentServer = enabled
WEBServer = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/net]
max concurrent = ${maxConcurrent}

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = ${PASSWORD}

[/settings/remote/server]
port = 0
bind to = 127.0.0.1
allow arguments = 1
; the network checks are not for peers by default (no relay): opened here on purpose
allowed queries = *, !remote_*, !agent_*

[/settings/agent/server]
port = 0
allowed queries = *
bind to = 127.0.0.1
certificate = ${server.cert}
certificate key = ${server.key}
ca = ${ca}
verify mode = peer-cert
`;
}

let serverCert: CertFiles;
let caCert: CertFiles;

before(async () => {
  // Each peer is registered as it is up, so those that started are closed even when another failed to.
  const keep = (p: Peer): Peer => made.add(p, (q) => q.close());
  [tcp, http, dns, ntp] = await Promise.all([
    tcpPeer().then(keep),
    httpPeer().then(keep),
    dnsPeer({ 'svc.test.example': { A: ['192.0.2.7'] } }).then(keep),
    ntpPeer(0).then(keep),
  ]);
  certs = made.add(certDir(), (c) => c.remove());
  caCert = certs.ca('ca');
  serverCert = certs.issue(caCert, 'server', 'server');
  client = certs.issue(caCert, 'client', 'client');
  agent = made.add(await startAgent({ ini: ini(4, serverCert, caCert.cert) }), (a) => a.stop());
  base = inRange(await agent.waitForLog(/web server listening on (https:\/\/127\.0\.0\.1:\d+)/), 1);
  nrpePort = await listenerPort(agent, 'RemoteServer');
  agentPort = await listenerPort(agent, 'AgentServer');
});

after(() => made.close());

/** `config-agent client agent_query` as a process; bounded by 20 s. */
function agentQuery(command: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const argv = [
      MAIN,
      'client',
      '--settings',
      '/nonexistent/agent.ini',
      'agent_query',
      '--host',
      '127.0.0.1',
      '--port',
      String(agentPort),
      '--certificate',
      client.cert,
      '--certificate-key',
      client.key,
      '--command',
      command,
      '--arguments',
      ...args,
    ];
    execFile(
      process.execPath,
      argv,
      { timeout: 20_000, env: { ...process.env, AGENT_LOG_LEVEL: 'silent' } },
      (err, stdout) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, out: stdout.trim() });
      },
    );
  });
}

async function api(command: string, args: Record<string, string>): Promise<{ result: number; message: string }> {
  const qs = Object.entries(args)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
  const res = await webRequest(`${base}/api/v1/queries/${command}/commands/execute?${qs}`, {
    user: 'root',
    password: PASSWORD,
    timeoutMs: 20_000,
  });
  assert.equal(res.status, 200, res.body);
  const body = res.json<{ result: number; lines: { message: string }[] }>();
  return { result: body.result, message: body.lines[0]?.message ?? '' };
}

void test('check_tcp over NRPE, the agent protocol and the API', async () => {
  const nrpe = await checkNrpe(nrpePort, [
    '-c',
    'check_tcp',
    '-a',
    'host=127.0.0.1',
    `port=${tcp.port}`,
    'expect=HELLO',
  ]);
  assert.equal(nrpe.code, 0, nrpe.out);
  assert.match(
    nrpe.out,
    new RegExp(
      `^OK: 127\\.0\\.0\\.1:${tcp.port} reply matches HELLO in [\\d.]+ms\\|'127\\.0\\.0\\.1:${tcp.port} time'=[\\d.]+ms;1000;5000;0$`,
    ),
  );
  const viaAgent = await agentQuery('check_tcp', ['host=127.0.0.1', `port=${tcp.port}`]);
  assert.equal(viaAgent.code, 0, viaAgent.out);
  assert.match(viaAgent.out, /^OK: 127\.0\.0\.1:\d+ connected in [\d.]+ms\|/);
  const viaApi = await api('check_tcp', { host: '127.0.0.1', port: String(tcp.port), 'detail-syntax': '${result}' });
  assert.deepEqual(viaApi, { result: 0, message: 'OK: ok' });
});

void test('check_http, check_dns and check_ntp_offset over NRPE and the API', async () => {
  const h = await checkNrpe(nrpePort, ['-c', 'check_http', '-a', `url=http://127.0.0.1:${http.port}/status/503`]);
  assert.equal(h.code, 2, h.out);
  assert.match(
    h.out,
    /^CRITICAL: http:\/\/127\.0\.0\.1:\d+\/status\/503: HTTP 503 Service Unavailable, 10 bytes in [\d.]+ms\|/,
  );
  const d = await api('check_dns', {
    host: 'svc.test.example',
    server: '127.0.0.1',
    port: String(dns.port),
    'detail-syntax': '${first}',
  });
  assert.deepEqual(d, { result: 0, message: 'OK: 192.0.2.7' });
  const n = await checkNrpe(nrpePort, ['-c', 'check_ntp_offset', '-a', 'server=127.0.0.1', `port=${ntp.port}`]);
  assert.equal(n.code, 0, n.out);
  assert.match(n.out, /^OK: 127\.0\.0\.1: offset -?[\d.]+ms, stratum 2, delay [\d.]+ms\|/);
});

void test('check_ping of 127.0.0.1 through the agent protocol', async () => {
  const r = await agentQuery('check_ping', ['host=127.0.0.1']);
  assert.equal(r.code, 0, r.out);
  assert.match(
    r.out,
    /^OK: 127\.0\.0\.1: 1\/1 replies, loss 0%, rtt [\d.]+ms\|'127\.0\.0\.1 time'=[\d.]+ms;60;100;0 '127\.0\.0\.1 loss'=0%;5;10;0;100$/,
  );
});

void test('check_index and check_dummy; the query list of the API (the web UI list) has every network check', async () => {
  const idx = await checkNrpe(nrpePort, ['-c', 'check_index', '-a', 'filter=module = "CheckNet"', 'list-separator=,']);
  assert.deepEqual(idx, {
    code: 0,
    out: 'check_dns (CheckNet, enabled),check_http (CheckNet, enabled),check_ntp_offset (CheckNet, enabled),check_ping (CheckNet, enabled),check_tcp (CheckNet, enabled)',
  });
  assert.deepEqual(await agentQuery('check_dummy', ['1', 'half', 'full']), { code: 1, out: 'half full' });
  const res = await webRequest(`${base}/api/v1/queries`, { user: 'root', password: PASSWORD, timeoutMs: 20_000 });
  assert.equal(res.status, 200, res.body);
  const names = res.json<{ name: string }[]>().map((q) => q.name);
  for (const n of [
    'check_tcp',
    'check_http',
    'check_dns',
    'check_ping',
    'check_ntp_offset',
    'check_index',
    'check_dummy',
  ])
    assert.ok(names.includes(n), `${n} in ${names.join(',')}`);
});

void test('a change of [/settings/net] applies in place', async () => {
  const mark = agent.mark();
  replaceFile(agent.settingsFile, ini(2, serverCert, caCert.cert));
  const line = await agent.waitForLog(/CheckNet: (\w+) \(/, 10_000, mark);
  assert.equal(line[1], 'apply', agent.logs().slice(mark));
  const r = await api('check_tcp', { host: '127.0.0.1', port: String(tcp.port) });
  assert.equal(r.result, 0, r.message);
});
