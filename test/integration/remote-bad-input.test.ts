/**
 * Bad input both ways. Our server (in a real agent) gets random bytes,
 * truncated packets, bad CRCs, wrong versions and a 100 MB stream, and still
 * answers check_nrpe. Our client facing a server that sends garbage, stalls
 * or closes early returns UNKNOWN with a clear message within its timeout.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as net from 'node:net';
import { startAgent, freePort, listenerPort, type AgentProcess } from '../helpers/agent-process.js';
import { checkNrpe } from '../helpers/nrpe-daemon.js';
import { Teardown } from '../helpers/teardown.js';
import { encodePacket, QUERY_PACKET, RESPONSE_PACKET } from '../../src/protocols/nrpe/packet.js';
import { nrpeRequest } from '../../src/protocols/nrpe/client.js';

let agent: AgentProcess;
let port: number;
const made = new Teardown();
after(() => made.close());

before(async () => {
  agent = made.add(
    await startAgent({
      ini: `[/modules]\nCheckHelpers = enabled\nRemoteServer = enabled\n\n[/settings/default]\nallowed hosts = 127.0.0.1\n\n[/settings/remote/server]\nport = 0\nbind to = 127.0.0.1\nuse ssl = 0\ntimeout = 2\n`,
    }),
    (a) => a.stop(),
  );
  await agent.waitForLog(/listening on 127\.0\.0\.1:\d+ \(plain\)/);
  port = await listenerPort(agent, 'RemoteServer');
});

/** Sends `chunks` on one connection; resolves with what came back when the server closes (5 s cap). */
function sendRaw(chunks: Buffer[]): Promise<Buffer> {
  return new Promise((resolve) => {
    const got: Buffer[] = [];
    const s = net.connect({ host: '127.0.0.1', port }, () => {
      for (const c of chunks) s.write(c);
    });
    const timer = setTimeout(() => s.destroy(), 5000);
    s.on('data', (d: Buffer) => got.push(d));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(got));
    });
  });
}

const answersCheckNrpe = async (): Promise<void> => {
  assert.deepEqual(await checkNrpe(port, ['-n', '-c', 'check_ok']), { code: 0, out: 'OK: check_ok' });
};

void test('random bytes, wrong versions, bad CRCs, bad sizes and truncated packets are dropped without an answer', async () => {
  const good = encodePacket({ version: 4, type: QUERY_PACKET, text: 'check_ok' });
  const badCrc = Buffer.from(good);
  badCrc.writeUInt8(badCrc.readUInt8(30) ^ 0xff, 30);
  const v7 = Buffer.from(good);
  v7.writeInt16BE(7, 0);
  const huge = Buffer.from(good);
  huge.writeInt32BE(0x7fffffff, 12);
  const response = encodePacket({ version: 4, type: RESPONSE_PACKET, text: 'not a query' });
  const cases: Buffer[][] = [
    [randomBytes(4096)],
    [badCrc],
    [v7],
    [huge],
    [response],
    [good.subarray(0, 500)],
    [Buffer.from('GET / HTTP/1.0\r\n\r\n')],
  ];
  for (const c of cases) assert.equal((await sendRaw(c)).length, 0);
  await answersCheckNrpe();
});

void test('a query split into many writes is answered', async () => {
  const good = encodePacket({ version: 2, type: QUERY_PACKET, text: 'check_warning' });
  const chunks = Array.from({ length: 12 }, (_, i) => good.subarray(i * 87, (i + 1) * 87));
  const answer = await sendRaw(chunks);
  assert.equal(answer.length, 1036);
  assert.equal(answer.readInt16BE(8), 1);
});

void test('a 100 MB stream is cut off early, streamed in 64 KiB chunks, and the server still answers', async () => {
  const chunk = randomBytes(64 * 1024);
  chunk.writeInt16BE(2, 0); // looks like a v2 packet: the server reads 1036 bytes, then drops the peer
  let written = 0;
  await new Promise<void>((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    const timer = setTimeout(() => s.destroy(), 10_000);
    const pump = (): void => {
      while (written < 100 * 1024 * 1024 && !s.destroyed) {
        written += chunk.length;
        if (!s.write(chunk)) return void s.once('drain', pump);
      }
      s.end();
    };
    s.on('connect', pump);
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  assert.ok(written < 100 * 1024 * 1024, `server read all ${written} bytes`);
  await answersCheckNrpe();
});

/** A throwaway server that does `behave` with each connection. */
async function withServer(behave: (s: net.Socket) => void, run: (port: number) => Promise<void>): Promise<void> {
  const sockets = new Set<net.Socket>();
  const srv = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    behave(s);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  try {
    await run((srv.address() as net.AddressInfo).port);
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise((r) => srv.close(r));
  }
}

const ask = (p: number, timeoutMs = 1000) =>
  nrpeRequest({ host: '127.0.0.1', port: p, timeoutMs, retry: 0, version: 'auto', payloadLength: 1024 }, 'check_ok');

void test('client: garbage from the server is UNKNOWN naming the packet problem', async () => {
  await withServer(
    (s) => s.once('data', () => s.end(randomBytes(2000).fill(0x41, 0, 2))),
    async (p) => await assert.rejects(ask(p), /unsupported packet version 16705/),
  );
  await withServer(
    (s) =>
      s.once('data', () => {
        const r = encodePacket({ version: 4, type: RESPONSE_PACKET, text: 'OK' });
        r.writeUInt8(r.readUInt8(17) ^ 1, 17);
        s.end(r);
      }),
    async (p) => await assert.rejects(ask(p), /CRC mismatch/),
  );
  await withServer(
    (s) => s.once('data', () => s.end(Buffer.from([0, 4, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0]))),
    async (p) => await assert.rejects(ask(p), /buffer length 268435456 is outside/),
  );
});

void test('client: a stalling server ends in a timeout within the limit', async () => {
  await withServer(
    () => undefined,
    async (p) => {
      const started = Date.now();
      await assert.rejects(ask(p, 500), /no answer from 127\.0\.0\.1:\d+ within 0\.5 s/);
      assert.ok(Date.now() - started < 1500);
    },
  );
});

void test('client: a server that closes early or sends half a packet is described', async () => {
  await withServer(
    (s) => s.once('data', () => s.end()),
    async (p) => await assert.rejects(ask(p), /closed the connection without answering/),
  );
  await withServer(
    (s) =>
      s.once('data', () =>
        s.end(encodePacket({ version: 4, type: RESPONSE_PACKET, text: 'x'.repeat(100) }).subarray(0, 40)),
      ),
    async (p) => await assert.rejects(ask(p), /closed the connection after 40 of 117 bytes of an answer/),
  );
});

void test('client: a close before the TLS handshake is done, as a reset or as an end, is explained the same way', async () => {
  const askTls = (p: number) =>
    nrpeRequest(
      {
        host: '127.0.0.1',
        port: p,
        timeoutMs: 2000,
        retry: 0,
        version: 'auto',
        payloadLength: 1024,
        tls: { rejectUnauthorized: false },
      },
      'check_ok',
    );
  // Reads our hello, then ends cleanly: the peer sees an end, not a reset. A plain connection is kept waiting.
  await withServer(
    (s) => s.once('data', () => s.end()),
    async (p) =>
      await assert.rejects(
        askTls(p),
        /connection closed by peer during the TLS handshake: the server waits for a plain NRPE packet/,
      ),
  );
  // Closes every connection at once, as NRPE does for an address it does not allow.
  await withServer(
    (s) => s.destroy(),
    async (p) =>
      await assert.rejects(
        askTls(p),
        /connection (reset|closed) by peer during the TLS handshake: the server closes connections from our address at once/,
      ),
  );
});

void test('client: a refused connection is UNKNOWN after its retries', async () => {
  const p = await freePort(); // a port nobody listens on, for the client alone (no agent listener here)
  await assert.rejects(
    nrpeRequest(
      { host: '127.0.0.1', port: p, timeoutMs: 3000, retry: 2, version: 'auto', payloadLength: 1024 },
      'check_ok',
    ),
    /cannot connect to 127\.0\.0\.1:\d+: connection refused \(3 attempts\)/,
  );
});
