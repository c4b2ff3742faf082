/**
 * The remote protocol with certificates, made here with openssl (a CA, a
 * server certificate for 127.0.0.1, client certificates, and an unrelated
 * CA): our client against Debian's daemon with a certificate and with
 * required client certificates; Debian's check_nrpe against our
 * RemoteServer with a certificate and with `verify mode = peer-cert`; our
 * NRPE server with `verify mode = peer` (a certificate is optional, one
 * that does not verify is refused); and
 * remote_submit end to end between two agent processes, directly and
 * through the REMOTE channel.
 */
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { certDir, type CertDir, type CertFiles } from '../helpers/agent-certs.js';
import { checkNrpe, startNrpeDaemon, type NrpeDaemon } from '../helpers/nrpe-daemon.js';
import { listenerPort, MAIN, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest } from '../helpers/web-client.js';
import { runRemoteQuery } from '../../src/modules/remote-client/remote-query.js';
import { loadSettingsText } from '../../src/settings/model/load.js';
import { moduleView } from '../../src/settings/model/module-view.js';
import { MODULE_SECTIONS } from '../../src/settings/model/module-table.js';
import type { Snapshot } from '../../src/settings/model/snapshot.js';
import { startNrpeServer, type NrpeServer } from '../../src/protocols/nrpe/server.js';
import { serverTlsOptions } from '../../src/protocols/listener/server-tls.js';
import { getLogger } from '../../src/log.js';
import { inRange } from '../../src/in-range.js';

const PASSWORD = 'pw';

let certs: CertDir;
let ca: CertFiles;
let otherCa: CertFiles;
let server: CertFiles;
let client: CertFiles;
let stranger: CertFiles;
let snapshot: Snapshot;
const made = new Teardown();
after(() => made.close());

before(() => {
  certs = made.add(certDir(), (c) => c.remove());
  ca = certs.ca('ca');
  otherCa = certs.ca('other-ca');
  server = certs.issue(ca, 'server', 'server');
  client = certs.issue(ca, 'agent-a', 'client');
  stranger = certs.issue(otherCa, 'stranger', 'client');
  const loaded = loadSettingsText('', join(certs.dir, 'agent.ini'));
  assert.ok(loaded.ok, JSON.stringify(loaded.problems));
  snapshot = loaded.snapshot;
});

/** remote_query through the library, against 127.0.0.1:port. */
const query = (port: number, ...args: string[]) =>
  runRemoteQuery(
    'remote_query',
    'query',
    ['--host', '127.0.0.1', '--port', String(port), '--timeout', '5', ...args],
    moduleView(MODULE_SECTIONS.RemoteClient, snapshot),
  );

/** `config-agent client <args>` as a process; bounded by 20 s. */
function cli(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, 'client', '--settings', '/nonexistent/agent.ini', ...args],
      { timeout: 20_000, env: { ...process.env, AGENT_LOG_LEVEL: 'silent' } },
      (err, stdout) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, out: stdout.trim() });
      },
    );
  });
}

void describe('our client against the Debian daemon with certificates', () => {
  let withCert: NrpeDaemon;
  let needsClientCert: NrpeDaemon;
  const made = new Teardown();
  after(() => made.close());

  before(async () => {
    const cert = `ssl_cert_file=${server.cert}\nssl_privatekey_file=${server.key}\nssl_logging=0x0f`;
    const register = (d: NrpeDaemon) => made.add(d, (started) => started.stop());
    [withCert, needsClientCert] = await Promise.all([
      startNrpeDaemon({ extra: cert }).then(register),
      startNrpeDaemon({ extra: `${cert}\nssl_cacert_file=${ca.cert}\nssl_client_certs=2` }).then(register),
    ]);
  });

  void it('--ca with --verify peer-cert succeeds over TLS 1.3 (config-agent client as check_nrpe)', async () => {
    const r = await cli([
      'remote_query',
      '-H',
      '127.0.0.1',
      '-p',
      String(withCert.port),
      '-c',
      'check_ok',
      '--ca',
      ca.cert,
      '--verify',
      'peer-cert',
    ]);
    assert.deepEqual(r, { code: 0, out: "OK: fine|'x'=1;2;3" });
    assert.match(withCert.log(), /Remote 127\.0\.0\.1 - TLSv1\.3, Cipher is TLS_AES_256_GCM_SHA384/);
  });

  void it('an unrelated CA, or no CA with peer-cert, is UNKNOWN naming the certificate problem', async () => {
    const foreign = await query(withCert.port, '--command', 'check_ok', '--ca', otherCa.cert, '--verify', 'peer-cert');
    assert.equal(foreign.result, 3);
    assert.match(
      foreign.message,
      /^remote_query: TLS with 127\.0\.0\.1:\d+ failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate \(the server's certificate is not trusted: check --ca and --verify\)$/,
    );
    const systemStore = await query(withCert.port, '--command', 'check_ok', '--verify', 'peer-cert');
    assert.equal(systemStore.result, 3);
    assert.match(systemStore.message, /UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
  });

  void it('--verify none without a CA takes any certificate', async () => {
    const r = await query(withCert.port, '--command', 'check_ok', '--verify', 'none');
    assert.deepEqual([r.result, r.message], [0, 'OK: fine']);
  });

  void it('a daemon that requires client certificates takes ours', async () => {
    const r = await query(
      needsClientCert.port,
      '--command',
      'check_warn',
      '--certificate',
      client.cert,
      '--certificate-key',
      client.key,
      '--ca',
      ca.cert,
      '--verify',
      'peer-cert',
    );
    assert.deepEqual([r.result, r.message], [1, 'WARNING: meh']);
  });

  void it('without a client certificate, or with one from another CA, it is UNKNOWN saying so', async () => {
    const none = await query(needsClientCert.port, '--command', 'check_ok');
    assert.equal(none.result, 3);
    assert.match(
      none.message,
      /^remote_query: TLS with 127\.0\.0\.1:\d+ failed: the server requires a client certificate \(set --certificate and --certificate-key\)/,
    );
    const foreign = await query(
      needsClientCert.port,
      '--command',
      'check_ok',
      '--certificate',
      stranger.cert,
      '--certificate-key',
      stranger.key,
    );
    assert.equal(foreign.result, 3);
    assert.match(
      foreign.message,
      /^remote_query: TLS with 127\.0\.0\.1:\d+ failed: the server rejected our client certificate \(not signed by its CA\?\)/,
    );
  });
});

void describe('our NRPE server with verify mode peer', () => {
  let srv: NrpeServer;
  const made = new Teardown();
  after(() => made.close());

  before(async () => {
    srv = await startNrpeServer({
      host: '127.0.0.1',
      port: 0,
      tls: serverTlsOptions({
        cert: readFileSync(server.cert),
        key: readFileSync(server.key),
        ca: readFileSync(ca.cert),
        verifyMode: 'peer',
        verify: 'by-mode',
        ciphers: '',
      }),
      isAllowed: () => true,
      allowArguments: false,
      allowNastyCharacters: false,
      payloadLength: 1024,
      timeoutMs: 5000,
      log: getLogger('test:nrpe-server'),
      // The answer names who the server saw.
      answer: async (command, _args, peer) => ({
        command,
        result: 0,
        message: `${peer.address} ${peer.certificate ?? '-'}`,
        perf: [],
      }),
    });
    made.add(srv, (s) => s.close());
  });

  void it('serves clients without a certificate and names a verified one; refuses one from another CA', async () => {
    const port = srv.address().port;
    assert.equal((await query(port, '--command', 'who')).message, '127.0.0.1 -');
    assert.equal(
      (await query(port, '--command', 'who', '--certificate', client.cert, '--certificate-key', client.key)).message,
      '127.0.0.1 agent-a',
    );
    const foreign = await query(
      port,
      '--command',
      'who',
      '--certificate',
      stranger.cert,
      '--certificate-key',
      stranger.key,
    );
    assert.equal(foreign.result, 3);
    assert.match(
      foreign.message,
      /closed the connection without answering: the server refused the request \(.*our client certificate\)/,
    );
  });
});

void describe('check_nrpe against our RemoteServer with certificates, and remote_submit between two agents', () => {
  let a: AgentProcess;
  let b: AgentProcess;
  let aPort: number;
  let bPort: number;
  let baseA: string;
  let baseB: string;
  const made = new Teardown();
  after(() => made.close());

  before(async () => {
    // B: clients need a certificate signed by the CA; submissions go to PASSIVE. B starts first: A's settings name the port it took.
    b = await startAgent({
      ini: `${common()}
ca = ${ca.cert}
verify mode = peer-cert
submit channel = PASSIVE
`,
    });
    made.add(b, (agent) => agent.stop());
    bPort = await listenerPort(b, 'RemoteServer');
    // A: a certificate, no client verification; its own submissions go to REMOTE, which RemoteClient forwards to B.
    const iniA = `${common()}
submit channel = REMOTE

[/settings/remote/client/targets/default]
address = 127.0.0.1:${bPort}
certificate = ${client.cert}
certificate key = ${client.key}
ca = ${ca.cert}
verify mode = peer-cert
timeout = 5
`;
    a = made.add(await startAgent({ ini: iniA }), (agent) => agent.stop());
    aPort = await listenerPort(a, 'RemoteServer');
    [baseA, baseB] = await Promise.all([webBase(a), webBase(b)]);
  });

  void it('check_nrpe -A ca verifies our certificate; another CA fails the handshake', async () => {
    assert.deepEqual(await checkNrpe(aPort, ['-A', ca.cert, '-c', 'check_ok']), { code: 0, out: 'OK: check_ok' });
    const foreign = await checkNrpe(aPort, ['-A', otherCa.cert, '-c', 'check_ok']);
    assert.equal(foreign.code, 2);
    assert.match(foreign.out, /Could not complete SSL handshake/);
  });

  void it('with verify mode peer-cert, check_nrpe -C -K is served and check_nrpe without -C is refused', async () => {
    assert.deepEqual(await checkNrpe(bPort, ['-C', client.cert, '-K', client.key, '-A', ca.cert, '-c', 'check_ok']), {
      code: 0,
      out: 'OK: check_ok',
    });
    const mark = b.mark();
    const none = await checkNrpe(bPort, ['-c', 'check_ok']);
    assert.notEqual(none.code, 0, none.out);
    await b.waitForLog(/TLS handshake with 127\.0\.0\.1 failed: .*peer did not return a certificate/, 5000, mark);
    const foreign = await checkNrpe(bPort, ['-C', stranger.cert, '-K', stranger.key, '-c', 'check_ok']);
    assert.notEqual(foreign.code, 0, foreign.out);
  });

  void it('remote_submit from A reaches B, which logs it and lists it in remote_submissions', async () => {
    const sent = await run(baseA, 'remote_submit', { alias: 'backup', result: 'WARN', message: 'late|age=5h' });
    assert.deepEqual(sent, { result: 0, message: 'Submission of backup accepted on channel PASSIVE (0 listeners)' });
    // The source is the CN of A's verified client certificate.
    await b.waitForLog(/submission from agent-a: backup WARNING: late\|'age'=5h/);
    const list = JSON.parse((await run(baseB, 'remote_submissions', {})).message) as {
      command: string;
      source: string;
      address: string;
      status: string;
      message: string;
      perf: string;
    }[];
    const backup = list.find((s) => s.command === 'backup');
    assert.deepEqual(backup && [backup.source, backup.address, backup.status, backup.message, backup.perf], [
      'agent-a',
      '127.0.0.1',
      'WARNING',
      'late',
      "'age'=5h",
    ]);
    // A newer result for the same command and source replaces the older one.
    await run(baseA, 'remote_submit', { alias: 'backup', result: 'OK', message: 'done' });
    const latest = JSON.parse((await run(baseB, 'remote_submissions', {})).message) as {
      command: string;
      status: string;
      message: string;
    }[];
    assert.deepEqual(
      latest.filter((s) => s.command === 'backup').map((s) => [s.status, s.message]),
      [['OK', 'done']],
    );
  });

  void it("results submitted on A's REMOTE channel are forwarded to B", async () => {
    // Submitted to A's RemoteServer, which puts them on A's REMOTE channel; A's RemoteClient sends them to B.
    const r = await cli([
      'remote_submit',
      '--host',
      '127.0.0.1',
      '--port',
      String(aPort),
      '--ca',
      ca.cert,
      '--verify',
      'peer-cert',
      '--alias',
      'forwarded',
      '--result',
      'CRIT',
      '--message',
      'via channel',
    ]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /accepted on channel REMOTE \(1 listener\)/);
    await b.waitForLog(/submission from agent-a: forwarded CRITICAL: via channel/);
  });
});

function common(): string {
  return `[/modules]
CheckHelpers = enabled
RemoteServer = enabled
RemoteClient = enabled
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
certificate = ${server.cert}
certificate key = ${server.key}`;
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
