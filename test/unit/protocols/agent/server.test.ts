import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { startTestPeer, type TestPeer } from '../../../helpers/agent-test-peer.js';
import { Teardown } from '../../../helpers/teardown.js';
import { FrameReader } from '../../../../src/protocols/agent/frame-reader.js';
import { encodeFrame, FLAG_CLOSE, FrameKind, peekHeader, type Frame } from '../../../../src/protocols/agent/framing.js';
import { decode, encode } from '../../../../src/core/plugin/codec.js';
import { Plugin } from '../../../../src/core/plugin/generated/plugin.js';
import { inRange } from '../../../../src/in-range.js';

/** A raw connection that collects answer frames; every wait is bounded. */
async function raw(
  port: number,
): Promise<{ socket: Socket; frames: Frame[]; closed: Promise<void>; next(n: number, ms?: number): Promise<Frame[]> }> {
  const socket = connect({ host: '127.0.0.1', port });
  await new Promise<void>((res, rej) => socket.once('connect', res).once('error', rej));
  const reader = new FrameReader(1 << 20);
  const frames: Frame[] = [];
  socket.on('data', (c) => frames.push(...reader.push(c).frames));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((res) => socket.once('close', () => res()));
  const next = async (n: number, ms = 3000): Promise<Frame[]> => {
    const until = Date.now() + ms;
    while (frames.length < n && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    assert.ok(frames.length >= n, `expected ${n} frames, got ${frames.length}`);
    return frames.splice(0, n);
  };
  return { socket, frames, closed, next };
}

const queryBody = (id: number, command = 'check_ok', args: string[] = []): Uint8Array =>
  encode('QueryRequestMessage', {
    header: { type: 1, version: 1, max_supported_version: 1, id },
    payload: [{ command, arguments: args }],
  });

let peer: TestPeer;
const made = new Teardown();
after(() => made.close());

void test('setup', async () => {
  peer = made.add(await startTestPeer({ maxFrame: 4096 }), (p) => p.listener.close());
});

void test('each request kind gets its answer kind with the request id, versions 1', async () => {
  const c = await raw(peer.port);
  c.socket.write(encodeFrame(FrameKind.QueryRequest, queryBody(11, 'check_ok', ['x'])));
  c.socket.write(
    encodeFrame(
      FrameKind.ExecRequest,
      encode('ExecuteRequestMessage', {
        header: { type: 3, version: 1, id: 12 },
        payload: [{ command: 'run', arguments: ['a', 'b'] }],
      }),
    ),
  );
  c.socket.write(
    encodeFrame(
      FrameKind.Submit,
      encode('SubmitResponseMessage', {
        header: { type: 2, version: 1, id: 13 },
        payload: [{ command: 'svc', result: 1, message: 'passive' }],
      }),
    ),
  );
  const got = await c.next(3);
  const byId = new Map(got.map((f) => [peekHeader(f.body).id, f]));
  const q = byId.get(11)!;
  assert.equal(q.kind, FrameKind.QueryResponse);
  const qm = decode('QueryResponseMessage', q.body);
  assert.equal(inRange(qm.payload, 0).message, 'echo check_ok x');
  assert.deepEqual([qm.header.version, qm.header.max_supported_version], [1, 1]);
  assert.equal(byId.get(12)!.kind, FrameKind.ExecResponse);
  assert.equal(inRange(decode('ExecuteResponseMessage', byId.get(12)!.body).payload, 0).message, 'ran a,b');
  const ack = byId.get(13)!;
  assert.equal(ack.kind, FrameKind.SubmitAck);
  assert.deepEqual(
    decode('QueryResponseMessage', ack.body).payload.map((p) => [p.command, p.result, p.message]),
    [['svc', 0, 'accepted svc']],
  );
  assert.equal(peer.submitted.at(-1)!.message, 'passive');
  c.socket.destroy();
});

void test('requests in flight at once are answered as they finish, matched by id', async () => {
  const c = await raw(peer.port);
  c.socket.write(
    Buffer.concat([
      encodeFrame(FrameKind.QueryRequest, queryBody(1, 'sleep', ['150'])),
      encodeFrame(FrameKind.QueryRequest, queryBody(2, 'sleep', ['0'])),
    ]),
  );
  const got = await c.next(2);
  assert.deepEqual(
    got.map((f) => peekHeader(f.body).id),
    [2, 1],
  );
  c.socket.destroy();
});

void test('random bytes: one Error frame with the close flag, then the connection closes; the server keeps serving', async () => {
  const c = await raw(peer.port);
  c.socket.write(Buffer.from([0x13, 0x37, 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8]));
  const err = inRange(await c.next(1), 0);
  assert.equal(err.kind, FrameKind.Error);
  assert.equal(err.flags & FLAG_CLOSE, FLAG_CLOSE);
  assert.match(inRange(decode('QueryResponseMessage', err.body).payload, 0).message, /bad magic 0x1337/);
  await c.closed;
  const d = await raw(peer.port);
  d.socket.write(encodeFrame(FrameKind.QueryRequest, queryBody(5)));
  assert.equal(inRange(await d.next(1), 0).kind, FrameKind.QueryResponse);
  d.socket.destroy();
});

void test('an oversized frame is refused on its header and the connection closes', async () => {
  const c = await raw(peer.port);
  const big = encodeFrame(FrameKind.QueryRequest, new Uint8Array(4097));
  c.socket.write(big.subarray(0, 12));
  const err = inRange(await c.next(1), 0);
  assert.match(
    inRange(decode('QueryResponseMessage', err.body).payload, 0).message,
    /frame of 4097 bytes exceeds the limit of 4096 bytes/,
  );
  await c.closed;
});

void test('valid frames holding garbage get an Error each and the connection stays up', async () => {
  const c = await raw(peer.port);
  c.socket.write(encodeFrame(FrameKind.QueryRequest, Buffer.from([0xff, 0xff, 0xff, 0xff])));
  c.socket.write(encodeFrame(FrameKind.ExecRequest, new Uint8Array(0)));
  c.socket.write(encodeFrame(99 as FrameKind, queryBody(31)));
  c.socket.write(encodeFrame(FrameKind.QueryResponse, queryBody(32)));
  const errors = await c.next(4);
  for (const e of errors) assert.equal(e.kind, FrameKind.Error);
  const texts = errors.map((e) => inRange(decode('QueryResponseMessage', e.body).payload, 0).message);
  // Frame-level errors are answered at once, body errors after decoding: match by content.
  const find = (re: RegExp): number => {
    const i = texts.findIndex((t) => re.test(t));
    assert.ok(i >= 0, `no error matching ${re} in ${JSON.stringify(texts)}`);
    return i;
  };
  find(/invalid QueryRequestMessage/);
  find(/invalid ExecuteRequestMessage.*header/);
  assert.equal(peekHeader(inRange(errors, find(/frame kind 99 \(unknown kind 99\) is not a request/)).body).id, 31);
  assert.equal(peekHeader(inRange(errors, find(/frame kind 2 \(QueryResponse\) is not a request/)).body).id, 32);
  c.socket.write(encodeFrame(FrameKind.QueryRequest, queryBody(33)));
  const ok = inRange(await c.next(1), 0);
  assert.equal(ok.kind, FrameKind.QueryResponse);
  assert.equal(peekHeader(ok.body).id, 33);
  c.socket.destroy();
});

void test('a message with a required field missing gets an Error carrying its id', async () => {
  const c = await raw(peer.port);
  const header = Plugin.Header.encode({ type: 1, version: 1, id: 41 }).finish();
  // payload { arguments: ["x"] } without the required command.
  const body = Uint8Array.from([0x0a, header.length, ...header, 0x12, 0x03, 0x1a, 0x01, 0x78]);
  c.socket.write(encodeFrame(FrameKind.QueryRequest, body));
  const err = inRange(await c.next(1), 0);
  assert.equal(err.kind, FrameKind.Error);
  assert.equal(peekHeader(err.body).id, 41);
  assert.match(inRange(decode('QueryResponseMessage', err.body).payload, 0).message, /missing required 'command'/);
  c.socket.destroy();
});

void test('a version this agent does not speak gets an Error naming the versions', async () => {
  const c = await raw(peer.port);
  // Encoded without the codec's check, which only knows version 1.
  const body = Plugin.QueryRequestMessage.encode({
    header: { type: 1, version: 2 as Plugin.Version, max_supported_version: 3 as Plugin.Version, id: 51 },
    payload: [{ command: 'check_ok' }],
  }).finish();
  c.socket.write(encodeFrame(FrameKind.QueryRequest, body));
  const err = inRange(await c.next(1), 0);
  assert.equal(err.kind, FrameKind.Error);
  assert.match(
    inRange(decode('QueryResponseMessage', err.body).payload, 0).message,
    /message version 2 is not supported \(peer speaks 2 to 3, this agent speaks 1 to 1\)/,
  );
  // A peer that writes version 1 and could speak more gets an answer in version 1.
  c.socket.write(
    encodeFrame(
      FrameKind.QueryRequest,
      Plugin.QueryRequestMessage.encode({
        header: { type: 1, version: 1, max_supported_version: 5 as Plugin.Version, id: 52 },
        payload: [{ command: 'check_ok' }],
      }).finish(),
    ),
  );
  const ok = inRange(await c.next(1), 0);
  assert.equal(ok.kind, FrameKind.QueryResponse);
  assert.deepEqual(peekHeader(ok.body), { id: 52, version: 1, maxSupportedVersion: 1 });
  c.socket.destroy();
});

void test('a handler that throws gives an Error for that request only', async () => {
  const c = await raw(peer.port);
  c.socket.write(encodeFrame(FrameKind.QueryRequest, queryBody(61, 'fail')));
  c.socket.write(encodeFrame(FrameKind.QueryRequest, queryBody(62)));
  const got = await c.next(2);
  const e = got.find((f) => peekHeader(f.body).id === 61)!;
  assert.equal(e.kind, FrameKind.Error);
  assert.match(inRange(decode('QueryResponseMessage', e.body).payload, 0).message, /handler broke/);
  assert.equal(got.find((f) => peekHeader(f.body).id === 62)!.kind, FrameKind.QueryResponse);
  c.socket.destroy();
});

void test('a peer outside allowed hosts is disconnected before any byte', async () => {
  const closed = await startTestPeer({ allowed: () => false });
  try {
    const c = await raw(closed.port);
    c.socket.write(encodeFrame(FrameKind.QueryRequest, queryBody(1)));
    await c.closed;
    assert.equal(c.frames.length, 0);
  } finally {
    await closed.listener.close();
  }
});

void test('an idle connection is closed after the idle timeout', async () => {
  const idle = await startTestPeer({ idleTimeoutMs: 100 });
  try {
    const c = await raw(idle.port);
    const start = Date.now();
    await c.closed;
    assert.ok(Date.now() - start < 3000);
  } finally {
    await idle.listener.close();
  }
});
