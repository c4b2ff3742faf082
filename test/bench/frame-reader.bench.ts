/**
 * The agent-protocol frame reader against split input: a 1 MiB frame pushed
 * in 1-byte chunks (what a peer sending 1-byte TLS records produces after
 * decryption) against the same frame in 16 KiB chunks (full TLS records),
 * the baseline measured in the same run with the same reader and the same
 * bytes. Both sides do the same work: one frame out, compared with what went
 * in. For scale, the reader that issue 12 measured (Buffer.concat of every
 * pending byte on each chunk) is timed on a 64 KiB frame only, as it is
 * quadratic. Everything runs in this one process: no network, so no load
 * generator to keep apart. Goal: 1 MiB in 1-byte chunks under 100 ms.
 * Run: npm run bench -- frame-reader
 */
import { FrameReader } from '../../src/protocols/agent/frame-reader.js';
import { encodeFrame, FrameKind, HEADER_SIZE } from '../../src/protocols/agent/framing.js';
import { inRange } from '../../src/in-range.js';

const ROUNDS = 7;
const MIB = 1 << 20;

const body = Buffer.alloc(MIB, 0x61);
const frame = encodeFrame(FrameKind.QueryRequest, body);

// The chunks are cut before timing: making them is the socket's work, not the reader's.
const bytes1 = split(frame, 1);
const records16k = split(frame, 16 * 1024);
const oneByte: number[] = [];
const records: number[] = [];
for (let i = 0; i < 2; i++) {
  readSplit(records16k, frame.length);
  readSplit(bytes1, frame.length);
}
for (let i = 0; i < ROUNDS; i++) {
  records.push(time(() => readSplit(records16k, frame.length)));
  oneByte.push(time(() => readSplit(bytes1, frame.length)));
}
const small = encodeFrame(FrameKind.QueryRequest, Buffer.alloc(64 * 1024, 0x62));
const small1 = split(small, 1);
const oldMs = median([0, 1, 2].map(() => time(() => quadraticRead(small1))));
const newSmallMs = median([0, 1, 2].map(() => time(() => readSplit(small1, small.length))));

const a = median(oneByte);
const b = median(records);
console.log(`frame-reader: 1 MiB frame in 1-byte chunks: median ${a.toFixed(1)} ms (${ROUNDS} rounds)`);
console.log(
  `frame-reader: same frame in 16 KiB chunks (baseline): median ${b.toFixed(2)} ms; ratio ${(a / b).toFixed(1)}x`,
);
console.log(
  `frame-reader: 64 KiB frame in 1-byte chunks: this reader ${newSmallMs.toFixed(1)} ms, the concat-on-every-chunk reader ${oldMs.toFixed(0)} ms`,
);
console.log(`frame-reader: goal 1 MiB in 1-byte chunks < 100 ms: ${a < 100 ? 'PASS' : 'MISS'}`);

function split(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

/** Pushes the chunks; throws unless exactly the one frame comes out intact. */
function readSplit(chunks: Buffer[], total: number): void {
  const reader = new FrameReader(MIB);
  let frames = 0;
  let length = 0;
  for (const chunk of chunks) {
    for (const f of reader.push(chunk).frames) {
      frames++;
      length = f.body.length;
    }
  }
  if (frames !== 1 || length !== total - HEADER_SIZE) throw new Error(`read ${frames} frames of ${length} bytes`);
}

/** The reader issue 12 measured: every chunk joined with all pending bytes (kept here only to show the difference). */
function quadraticRead(chunks: Buffer[]): void {
  let pending: Buffer | undefined;
  let frames = 0;
  for (const chunk of chunks) {
    const buf: Buffer = pending === undefined ? chunk : Buffer.concat([pending, chunk]);
    pending = buf;
    if (buf.length >= HEADER_SIZE && buf.length >= HEADER_SIZE + buf.readUInt32BE(8)) {
      frames++;
      pending = undefined;
    }
  }
  if (frames !== 1) throw new Error('quadratic reader lost the frame');
}

function time(fn: () => void): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return inRange(sorted, Math.floor(sorted.length / 2));
}
