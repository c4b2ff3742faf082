/**
 * Write backpressure on the agent-protocol listener (served-connection.ts):
 * a peer that sends requests and does not read the answers makes the
 * listener stop reading its requests once the answers back up, so the
 * agent does not answer into memory without bound. A real loopback socket
 * (port 0): the peer writes 8 KiB requests until its own writes stall (no
 * `drain` for 2 s, which only happens when the listener stopped reading) or
 * a cap of 5000 requests (40 MiB) is reached, which would mean the listener
 * reads on regardless. Then it reads: every request written gets its
 * answer, so reading resumed.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { once } from 'node:events';
import { startTestPeer, type TestPeer } from '../../../helpers/agent-test-peer.js';
import { queryFrame } from '../../../helpers/abuse-peers.js';
import { FrameReader } from '../../../../src/protocols/agent/frame-reader.js';
import { waitUntil } from '../../../helpers/wait-until.js';

const CAP = 5000;
const PAD = 'x'.repeat(8192);

let peer: TestPeer | undefined;
after(async () => peer?.listener.close());

void test('a peer that does not read its answers: the listener stops reading its requests, and resumes when it reads', async () => {
  peer = await startTestPeer({ maxFrame: 1 << 16, idleTimeoutMs: 60_000 });
  const socket = connect({ host: '127.0.0.1', port: peer.port });
  await once(socket, 'connect');
  socket.on('error', () => undefined);
  let written = 0;
  let stalled = false;
  while (written < CAP && !stalled) {
    written++;
    if (socket.write(queryFrame(written, 'check_ok', [PAD]))) continue;
    const drained = await Promise.race([
      once(socket, 'drain').then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 2000).unref()),
    ]);
    stalled = !drained;
  }
  assert.ok(
    stalled,
    `the listener read all ${written} requests (${(written * PAD.length) / 2 ** 20} MiB) while their answers were not read`,
  );
  // Now read: the listener takes the rest of the requests and answers every one.
  const reader = new FrameReader(1 << 20);
  let answers = 0;
  socket.on('data', (chunk: Buffer) => {
    answers += reader.push(chunk).frames.length;
  });
  await waitUntil(() => answers === written, 30_000, `${written} answers`);
  socket.destroy();
});
