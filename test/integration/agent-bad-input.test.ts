/**
 * Bad input at a running agent's AgentServer (plain TCP, so the bytes reach
 * the frame reader as sent): random bytes, an oversized frame, frames
 * holding garbage, a message with a required field missing, a flood. The
 * server answers what it can, drops what it must and keeps serving.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { listenerPort, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { FrameReader } from '../../src/protocols/agent/frame-reader.js';
import {
  encodeFrame,
  FLAG_CLOSE,
  FrameKind,
  kindName,
  peekHeader,
  type Frame,
} from '../../src/protocols/agent/framing.js';
import { decode, encode } from '../../src/core/plugin/codec.js';
import { Plugin } from '../../src/core/plugin/generated/plugin.js';
import { inRange } from '../../src/in-range.js';

interface Raw {
  socket: Socket;
  closed: Promise<void>;
  next(n: number): Promise<Frame[]>;
}

async function open(port: number): Promise<Raw> {
  const socket = connect({ host: '127.0.0.1', port });
  await new Promise<void>((res, rej) => socket.once('connect', res).once('error', rej));
  const reader = new FrameReader(1 << 20);
  const frames: Frame[] = [];
  socket.on('data', (c) => frames.push(...reader.push(c).frames));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((res) => socket.once('close', () => res()));
  return {
    socket,
    closed,
    async next(n) {
      const until = Date.now() + 5000;
      while (frames.length < n && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      assert.ok(frames.length >= n, `expected ${n} frames, got ${frames.length}`);
      return frames.splice(0, n);
    },
  };
}

const query = (id: number, command = 'check_ok'): Buffer =>
  encodeFrame(
    FrameKind.QueryRequest,
    encode('QueryRequestMessage', {
      header: { type: 1, version: 1, max_supported_version: 1, id },
      payload: [{ command }],
    }),
  );
const text = (f: Frame): string =>
  decode('QueryResponseMessage', f.body)
    .payload.map((p) => p.message)
    .join('; ');

void describe('AgentServer under bad input (agent process)', () => {
  let agent: AgentProcess;
  let port: number;
  const made = new Teardown();

  before(async () => {
    agent = made.add(
      await startAgent({
        ini: `[/modules]
CheckHelpers = enabled
AgentServer = enabled

[/settings/agent/server]
port = 0
bind to = 127.0.0.1
allowed hosts = 127.0.0.1
use ssl = 0
max frame size = 4096
`,
      }),
      (a) => a.stop(),
    );
    await agent.waitForLog(/AgentServer: listening on 127\.0\.0\.1:\d+ \(plain\)/);
    port = await listenerPort(agent, 'AgentServer');
  });
  after(() => made.close());

  const stillServes = async (): Promise<void> => {
    const c = await open(port);
    c.socket.write(query(1000));
    const f = inRange(await c.next(1), 0);
    assert.equal(f.kind, FrameKind.QueryResponse);
    assert.equal(text(f), 'OK: check_ok');
    c.socket.destroy();
  };

  void it('random bytes: an Error frame with the close flag, the connection closed', async () => {
    const c = await open(port);
    c.socket.write(Buffer.from('\x16\x03\x01 random bytes that are not a frame'));
    const f = inRange(await c.next(1), 0);
    assert.equal(f.kind, FrameKind.Error);
    assert.equal(f.flags & FLAG_CLOSE, FLAG_CLOSE);
    assert.match(text(f), /invalid agent-protocol frame: bad magic 0x1603/);
    await c.closed;
    await stillServes();
  });

  void it('an oversized frame: refused on its header, the connection closed', async () => {
    const c = await open(port);
    c.socket.write(encodeFrame(FrameKind.QueryRequest, Buffer.alloc(5000)).subarray(0, 100));
    const f = inRange(await c.next(1), 0);
    assert.match(text(f), /frame of 5000 bytes exceeds the limit of 4096 bytes/);
    await c.closed;
    await stillServes();
  });

  void it('frames holding garbage and a missing required field: an Error each, then answers on the same connection', async () => {
    const c = await open(port);
    const header = Plugin.Header.encode({ type: 1, version: 1, id: 7 }).finish();
    const noCommand = Uint8Array.from([0x0a, header.length, ...header, 0x12, 0x00]);
    c.socket.write(
      Buffer.concat([
        encodeFrame(FrameKind.QueryRequest, Buffer.from([0xde, 0xad, 0xbe, 0xef])),
        encodeFrame(FrameKind.Submit, Buffer.from('not protobuf')),
        encodeFrame(FrameKind.QueryRequest, noCommand),
        query(8, 'check_warning'),
      ]),
    );
    const frames = await c.next(4);
    const byId = frames.find((f) => peekHeader(f.body).id === 7)!;
    assert.equal(byId.kind, FrameKind.Error);
    assert.match(text(byId), /missing required 'command'/);
    assert.equal(frames.filter((f) => kindName(f.kind) === 'Error').length, 3);
    const ok = frames.find((f) => peekHeader(f.body).id === 8)!;
    assert.equal(ok.kind, FrameKind.QueryResponse);
    assert.equal(text(ok), 'WARNING: check_warning');
    c.socket.destroy();
  });

  void it('a flood of 2,000 pipelined queries on one connection is answered in full', async () => {
    const c = await open(port);
    c.socket.write(Buffer.concat(Array.from({ length: 2000 }, (_, i) => query(i + 1))));
    const frames = await c.next(2000);
    assert.deepEqual(new Set(frames.map((f) => peekHeader(f.body).id)).size, 2000);
    assert.ok(frames.every((f) => kindName(f.kind) === 'QueryResponse'));
    c.socket.destroy();
  });

  void it('logs why it closed connections', async () => {
    await agent.waitForLog(/closing connection from 127\.0\.0\.1: bad magic/);
    await agent.waitForLog(/closing connection from 127\.0\.0\.1: frame of 5000 bytes exceeds the limit/);
  });
});
