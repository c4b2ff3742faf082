import { test, before, after } from 'node:test';
import { once } from 'node:events';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { AgentClientPool, type AgentEndpoint } from '../../../../src/protocols/agent/client.js';
import { agentClientTls } from '../../../../src/protocols/agent/tls.js';
import { serverTlsOptions } from '../../../../src/protocols/listener/server-tls.js';
import { encodeFrame, FrameKind } from '../../../../src/protocols/agent/framing.js';
import { startTestPeer, type TestPeer } from '../../../helpers/agent-test-peer.js';
import { certDir, type CertDir, type CertFiles } from '../../../helpers/agent-certs.js';
import { Teardown } from '../../../helpers/teardown.js';
import { inRange } from '../../../../src/in-range.js';

const OPTS = { timeoutMs: 3000 };
let certs: CertDir;
let ca: CertFiles;
let otherCa: CertFiles;
let serverCert: CertFiles;
let clientCert: CertFiles;
let strangerCert: CertFiles;
const made = new Teardown();
after(() => made.close());

before(() => {
  certs = made.add(certDir(), (c) => c.remove());
  ca = certs.ca('ca');
  otherCa = certs.ca('other-ca');
  serverCert = certs.issue(ca, 'server', 'server');
  clientCert = certs.issue(ca, 'client', 'client');
  strangerCert = certs.issue(otherCa, 'stranger', 'client');
});

function plain(port: number): AgentEndpoint {
  return { host: '127.0.0.1', port };
}

function tlsEndpoint(
  port: number,
  s: Partial<{ certificate: string; certificateKey: string; ca: string; verifyMode: string }> = {},
): AgentEndpoint {
  const t = agentClientTls({
    allowedCiphers: 'ADH',
    certificate: '',
    certificateKey: '',
    certificateFormat: 'PEM',
    ca: '',
    verifyMode: 'none',
    ...s,
  });
  return { host: '127.0.0.1', port, tls: t.build, tlsKey: t.key };
}

async function peerWith(options: Parameters<typeof startTestPeer>[0] = {}): Promise<TestPeer> {
  return made.add(await startTestPeer(options), (p) => p.listener.close());
}

function pool(): AgentClientPool {
  return made.add(new AgentClientPool(), (p) => p.close());
}

void test('query, exec and submit over one pooled connection', async () => {
  const peer = await peerWith();
  const client = pool();
  const q = await client.query(plain(peer.port), [{ command: 'check_ok', arguments: ['a', 'b'] }], OPTS);
  assert.equal(inRange(q.payload, 0).message, 'echo check_ok a b');
  const e = await client.exec(plain(peer.port), [{ command: 'x', arguments: ['1'] }], OPTS);
  assert.equal(inRange(e.payload, 0).result, 1);
  const ack = await client.submit(plain(peer.port), [{ command: 'svc', result: 2, message: 'down' }], OPTS);
  assert.equal(inRange(ack.payload, 0).message, 'accepted svc');
  assert.equal(inRange(peer.submitted, 0).message, 'down');
  assert.equal(client.size(), 1);
  assert.equal(peer.listener.connections(), 1);
});

void test('200 requests at once on one connection each get their own answer', async () => {
  const peer = await peerWith();
  const client = pool();
  const answers = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      client.query(
        plain(peer.port),
        [{ command: 'sleep', arguments: [String((200 - i) % 7)] }, { command: `n${i}` }],
        OPTS,
      ),
    ),
  );
  answers.forEach((a, i) => assert.equal(inRange(a.payload, 1).command, `n${i}`));
  assert.equal(peer.listener.connections(), 1);
});

void test('refused: an error naming the address, after the retries', async () => {
  const peer = await peerWith();
  const port = peer.port;
  await peer.listener.close();
  const client = pool();
  await assert.rejects(client.query(plain(port), [{ command: 'check_ok' }], { ...OPTS, retry: 2 }), (err: Error) => {
    assert.equal(err.message, `cannot connect to 127.0.0.1:${port}: connection refused`);
    return true;
  });
});

void test('a timeout fails that request only; the connection keeps serving', async () => {
  const peer = await peerWith();
  const client = pool();
  await assert.rejects(
    client.query(plain(peer.port), [{ command: 'sleep', arguments: ['400'] }], { timeoutMs: 100 }),
    /no answer from 127\.0\.0\.1:\d+ within 0\.1 s/,
  );
  const q = await client.query(plain(peer.port), [{ command: 'check_ok' }], OPTS);
  assert.equal(inRange(q.payload, 0).result, 0);
  assert.equal(peer.listener.connections(), 1);
});

void test("an Error answer from the peer is the request's error", async () => {
  const peer = await peerWith();
  await assert.rejects(
    pool().query(plain(peer.port), [{ command: 'fail' }], OPTS),
    /answered with an error: handler broke/,
  );
});

void test('a peer that closes mid-stream, one that answers garbage, one that stalls', async () => {
  const servers: Server[] = [];
  const start = async (onData: (s: import('node:net').Socket) => void): Promise<number> => {
    const srv = createServer((s) => s.once('data', () => onData(s)));
    servers.push(srv);
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    return (srv.address() as import('node:net').AddressInfo).port;
  };
  try {
    const closer = await start((s) => s.destroy());
    await assert.rejects(
      pool().query(plain(closer), [{ command: 'x' }], { ...OPTS, retry: 1 }),
      /closed the connection/,
    );
    const garbage = await start((s) => s.write('HTTP/1.1 400 Bad Request\r\n\r\n'));
    await assert.rejects(
      pool().query(plain(garbage), [{ command: 'x' }], OPTS),
      /invalid agent-protocol frame: from 127\.0\.0\.1:\d+: bad magic/,
    );
    const wrongKind = await start((s) => s.write(encodeFrame(FrameKind.QueryResponse, Buffer.from([0x0a, 0x00]))));
    // The body has an empty header, so no id: the lone request in flight cannot be matched and times out.
    await assert.rejects(pool().query(plain(wrongKind), [{ command: 'x' }], { timeoutMs: 200 }), /no answer/);
    const staller = await start(() => undefined);
    await assert.rejects(
      pool().query(plain(staller), [{ command: 'x' }], { timeoutMs: 150 }),
      /no answer from .* within 0\.2 s|within 0\.1 s/,
    );
  } finally {
    for (const s of servers) s.close();
  }
});

void test('TLS with a required client certificate: accepted, missing, from another CA', async () => {
  const peer = await peerWith({
    tls: serverTlsOptions({
      cert: readFileSync(serverCert.cert, 'utf8'),
      key: readFileSync(serverCert.key, 'utf8'),
      ca: readFileSync(ca.cert),
      verifyMode: 'peer-cert',
      verify: 'by-ca',
      ciphers: 'ALL:!ADH',
    }),
  });
  const good = await pool().query(
    tlsEndpoint(peer.port, {
      certificate: clientCert.cert,
      certificateKey: clientCert.key,
      ca: ca.cert,
      verifyMode: 'peer-cert',
    }),
    [{ command: 'check_ok' }],
    OPTS,
  );
  assert.equal(inRange(good.payload, 0).result, 0);
  assert.equal(peer.submitted.length, 0);
  await assert.rejects(
    pool().query(tlsEndpoint(peer.port), [{ command: 'check_ok' }], OPTS),
    /TLS with 127\.0\.0\.1:\d+ failed: the peer requires a client certificate/,
  );
  await assert.rejects(
    pool().query(
      tlsEndpoint(peer.port, { certificate: strangerCert.cert, certificateKey: strangerCert.key }),
      [{ command: 'check_ok' }],
      OPTS,
    ),
    /rejected our client certificate|may have rejected our client certificate/,
  );
  // The server's certificate checked against the wrong CA.
  await assert.rejects(
    pool().query(
      tlsEndpoint(peer.port, {
        certificate: clientCert.cert,
        certificateKey: clientCert.key,
        ca: otherCa.cert,
        verifyMode: 'peer-cert',
      }),
      [{ command: 'check_ok' }],
      OPTS,
    ),
    /the peer's certificate is not trusted/,
  );
});

void test('plain to a TLS peer and TLS to a plain peer say so', async () => {
  const tlsPeer = await peerWith({
    tls: serverTlsOptions({
      cert: readFileSync(serverCert.cert, 'utf8'),
      key: readFileSync(serverCert.key, 'utf8'),
      verifyMode: 'none',
      verify: 'by-ca',
      ciphers: '',
    }),
  });
  await assert.rejects(
    pool().query(plain(tlsPeer.port), [{ command: 'x' }], OPTS),
    /closed the connection|does it expect TLS|bad magic/,
  );
  const plainPeer = await peerWith();
  await assert.rejects(
    pool().query(tlsEndpoint(plainPeer.port), [{ command: 'x' }], OPTS),
    /TLS with 127\.0\.0\.1:\d+ failed|does it use TLS/,
  );
});

void test('new TLS settings on the listener: open connections finish, the client reconnects', async () => {
  const serverTls = (caFile: string) =>
    serverTlsOptions({
      cert: readFileSync(serverCert.cert, 'utf8'),
      key: readFileSync(serverCert.key, 'utf8'),
      ca: readFileSync(caFile),
      verifyMode: 'peer-cert',
      verify: 'by-ca',
      ciphers: '',
    });
  const peer = await peerWith({ tls: serverTls(ca.cert) });
  const client = pool();
  const endpoint = tlsEndpoint(peer.port, { certificate: clientCert.cert, certificateKey: clientCert.key });
  const inFlight = once(peer.events, 'sleep');
  const slow = client.query(endpoint, [{ command: 'sleep', arguments: ['200'] }], OPTS);
  await inFlight;
  peer.listener.setTls(serverTls(otherCa.cert));
  assert.equal(inRange((await slow).payload, 0).result, 0);
  await assert.rejects(client.query(endpoint, [{ command: 'check_ok' }], { ...OPTS, retry: 2 }), /client certificate/);
  const stranger = tlsEndpoint(peer.port, { certificate: strangerCert.cert, certificateKey: strangerCert.key });
  assert.equal(inRange((await client.query(stranger, [{ command: 'check_ok' }], OPTS)).payload, 0).result, 0);
});

void test('an unreadable client certificate file is a TLS error naming the file', async () => {
  const peer = await peerWith();
  await assert.rejects(
    pool().query(tlsEndpoint(peer.port, { certificate: '/nonexistent/cert.pem' }), [{ command: 'x' }], OPTS),
    /cannot read certificate file \/nonexistent\/cert\.pem: ENOENT/,
  );
});
