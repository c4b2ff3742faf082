import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FrameReader } from '../../../../src/protocols/agent/frame-reader.js';
import { encodeFrame, FrameKind } from '../../../../src/protocols/agent/framing.js';
import { inRange } from '../../../../src/in-range.js';

const f1 = encodeFrame(FrameKind.QueryRequest, Buffer.from('first'));
const f2 = encodeFrame(FrameKind.Submit, Buffer.from('second body'), 1);
const empty = encodeFrame(FrameKind.ExecRequest, new Uint8Array(0));

void test('frames split across chunks byte by byte come out whole and in order', () => {
  const reader = new FrameReader(1024);
  const all = Buffer.concat([f1, f2, empty]);
  const out = [];
  for (const byte of all) out.push(...reader.push(Uint8Array.of(byte)).frames);
  assert.deepEqual(
    out.map((f) => [f.kind, f.flags, Buffer.from(f.body).toString()]),
    [
      [1, 0, 'first'],
      [5, 1, 'second body'],
      [3, 0, ''],
    ],
  );
  assert.equal(reader.buffered, 0);
});

void test('several frames in one chunk, and a partial tail kept for the next push', () => {
  const reader = new FrameReader(1024);
  const r1 = reader.push(Buffer.concat([f1, f2, f1.subarray(0, 7)]));
  assert.equal(r1.frames.length, 2);
  assert.equal(reader.buffered, 7);
  const r2 = reader.push(f1.subarray(7));
  assert.equal(Buffer.from(inRange(r2.frames, 0).body).toString(), 'first');
});

void test('a bad magic is fatal as soon as two bytes are in, after the good frames before it', () => {
  const reader = new FrameReader(1024);
  const r = reader.push(Buffer.concat([f1, Buffer.from('GET / HTTP/1.1\r\n')]));
  assert.equal(r.frames.length, 1);
  assert.match(r.fatal ?? '', /bad magic 0x4745/);
  assert.equal(reader.broken, true);
  assert.deepEqual(reader.push(f1), { frames: [] });
});

void test('an oversized length is fatal on the header alone, before the body is buffered', () => {
  const reader = new FrameReader(100);
  const header = encodeFrame(FrameKind.QueryRequest, new Uint8Array(101)).subarray(0, 12);
  const r = reader.push(header);
  assert.match(r.fatal ?? '', /frame of 101 bytes exceeds the limit of 100 bytes/);
  assert.equal(reader.buffered, 0);
});

void test('a body exactly at the limit is accepted', () => {
  const reader = new FrameReader(100);
  const r = reader.push(encodeFrame(FrameKind.QueryRequest, new Uint8Array(100)));
  assert.equal(r.fatal, undefined);
  assert.equal(inRange(r.frames, 0).body.length, 100);
});

void test('an unknown frame version is fatal', () => {
  const reader = new FrameReader(100);
  const frame = Buffer.from(f1);
  frame[2] = 2;
  assert.match(reader.push(frame).fatal ?? '', /unsupported frame version 2/);
});

void test("an unknown kind is not the reader's business: the frame comes out", () => {
  const reader = new FrameReader(100);
  const frame = Buffer.from(f1);
  frame[3] = 99;
  assert.equal(inRange(reader.push(frame).frames, 0).kind, 99);
});

void test('a 1 MiB frame pushed one byte at a time comes out whole (the reader is linear in the bytes received)', () => {
  // A reader that re-joins all pending bytes on each push copies ~550 GB here and runs past the test timeout.
  const body = Buffer.alloc(1 << 20, 0x61);
  body.writeUInt32BE(0xdeadbeef, body.length - 4);
  const frame = encodeFrame(FrameKind.QueryRequest, body);
  const reader = new FrameReader(1 << 20);
  const frames = [];
  for (let i = 0; i < frame.length; i++) frames.push(...reader.push(frame.subarray(i, i + 1)).frames);
  assert.equal(frames.length, 1);
  assert.equal(Buffer.compare(Buffer.from(inRange(frames, 0).body), body), 0);
  assert.equal(reader.buffered, 0);
});

void test('a frame assembled from chunks keeps its bytes while the next frame is read', () => {
  const reader = new FrameReader(1024);
  const a = encodeFrame(FrameKind.QueryRequest, Buffer.from('A'.repeat(300)));
  const b = encodeFrame(FrameKind.QueryRequest, Buffer.from('B'.repeat(300)));
  const out = [];
  for (const part of [a.subarray(0, 100), Buffer.concat([a.subarray(100), b.subarray(0, 50)]), b.subarray(50)])
    out.push(...reader.push(part).frames);
  assert.deepEqual(
    out.map((f) => Buffer.from(f.body).toString()),
    ['A'.repeat(300), 'B'.repeat(300)],
  );
});
