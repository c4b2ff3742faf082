/**
 * The flood of the web-under-flood benchmark, in its own process (never in
 * the agent's thread nor in the one that times the web): CLIENTS plain
 * agent-protocol connections to 127.0.0.1:PORT, each keeping two frames of
 * FRAME check_ok queries in flight, until its stdin closes. Prints
 * "ready" once every client has had a first answer, and at the end one
 * JSON line with the queries answered.
 * Usage: node agent-flood.js PORT CLIENTS FRAME
 */
import { connect, type Socket } from 'node:net';
import { FrameReader } from '../../../src/protocols/agent/frame-reader.js';
import { encodeFrame, FrameKind } from '../../../src/protocols/agent/framing.js';
import { encode } from '../../../src/core/plugin/codec.js';

const [port, clients, size] = process.argv.slice(2).map(Number);
if (!port || !clients || !size) throw new Error('usage: agent-flood PORT CLIENTS FRAME');
const frame = encodeFrame(
  FrameKind.QueryRequest,
  encode('QueryRequestMessage', {
    header: { type: 1, version: 1, max_supported_version: 1, id: 1 },
    payload: Array.from({ length: size }, () => ({ command: 'check_ok' })),
  }),
);
let answered = 0;
let stopping = false;
let firstAnswers = 0;
const sockets: Socket[] = [];

for (let c = 0; c < clients; c++) {
  const socket = connect({ host: '127.0.0.1', port });
  sockets.push(socket);
  const reader = new FrameReader(64 << 20);
  let first = true;
  socket.on('error', () => undefined);
  socket.on('connect', () => socket.write(Buffer.concat([frame, frame])));
  socket.on('data', (chunk: Buffer) => {
    for (const f of reader.push(chunk).frames) {
      if ((f.kind as FrameKind) !== FrameKind.QueryResponse) throw new Error(`flood: answer of kind ${f.kind}`);
      answered += size;
      if (first && ++firstAnswers === clients) process.stdout.write('ready\n');
      first = false;
      if (!stopping) socket.write(frame);
    }
  });
}

process.stdin.on('end', () => {
  stopping = true;
  for (const s of sockets) s.destroy();
  process.stdout.write(`${JSON.stringify({ answered })}\n`);
});
process.stdin.resume();
