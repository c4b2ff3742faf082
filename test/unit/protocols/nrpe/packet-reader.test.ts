import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PacketReader } from '../../../../src/protocols/nrpe/packet-reader.js';
import {
  encodePacket,
  QUERY_PACKET,
  RESPONSE_MORE_PACKET,
  RESPONSE_PACKET,
} from '../../../../src/protocols/nrpe/packet.js';

const reader = (): PacketReader => new PacketReader({ payloadLength: 1024, maxBufferLength: 65536 });

void test('reads a packet delivered one byte at a time', () => {
  const r = reader();
  const p = encodePacket({ version: 4, type: RESPONSE_PACKET, result: 1, text: 'WARNING: x' });
  for (let i = 0; i < p.length - 1; i++) {
    r.push(p.subarray(i, i + 1));
    assert.equal(r.next(), undefined);
  }
  r.push(p.subarray(p.length - 1));
  const got = r.next();
  assert.equal(got?.result, 1);
  assert.equal(got?.text.toString(), 'WARNING: x');
  assert.equal(r.buffered, 0);
});

void test('reads merged packets in order, v2 continuation packets included', () => {
  const r = reader();
  const a = encodePacket({ version: 2, type: RESPONSE_MORE_PACKET, result: 2, text: 'part one ' });
  const b = encodePacket({ version: 2, type: RESPONSE_PACKET, result: 2, text: 'part two' });
  const merged = Buffer.concat([a, b]);
  r.push(merged.subarray(0, 700));
  r.push(merged.subarray(700, 1500));
  r.push(merged.subarray(1500));
  assert.equal(r.next()?.type, RESPONSE_MORE_PACKET);
  assert.equal(r.next()?.text.toString(), 'part two');
  assert.equal(r.next(), undefined);
});

void test('rejects wrong versions, bad CRCs, bad types and oversized buffers at once', () => {
  const bad = (bytes: Buffer, re: RegExp): void => {
    const r = reader();
    r.push(bytes);
    assert.throws(() => r.next(), re);
  };
  bad(Buffer.from([0x00, 0x07]), /unsupported packet version 7/);
  bad(Buffer.from([0x16, 0x03, 0x01]), /unsupported packet version 5635/);
  const p = encodePacket({ version: 4, type: QUERY_PACKET, text: 'check_ok' });
  p.writeUInt8(p.readUInt8(20) ^ 1, 20);
  bad(p, /CRC mismatch/);
  const huge = Buffer.alloc(16);
  huge.writeInt16BE(4, 0);
  huge.writeInt32BE(10_000_000, 12);
  bad(huge, /buffer length 10000000 is outside 0\.\.65536/);
  const typed = encodePacket({ version: 4, type: QUERY_PACKET, text: 'x' });
  typed.writeInt16BE(9, 2);
  bad(typed, /unknown packet type 9/);
});

void test('a truncated packet is described at end of stream', () => {
  const r = reader();
  r.push(encodePacket({ version: 2, type: RESPONSE_PACKET, text: 'x' }).subarray(0, 20));
  assert.equal(r.next(), undefined);
  assert.equal(r.finish(), undefined);
  assert.equal(r.describePartial(), '20 of 1036 bytes');
});

void test('a v3 packet without its 3 trailing zero bytes is completed at end of stream', () => {
  const r = reader();
  const p = encodePacket({ version: 3, type: RESPONSE_PACKET, text: 'OK v3' });
  r.push(p.subarray(0, p.length - 3));
  assert.equal(r.next(), undefined);
  assert.equal(r.finish()?.text.toString(), 'OK v3');
});

void test('the payload length decides the v2 packet size', () => {
  const r = new PacketReader({ payloadLength: 2048, maxBufferLength: 65536 });
  const p = encodePacket({ version: 2, type: QUERY_PACKET, text: 'check_ok', payloadLength: 2048 });
  r.push(p.subarray(0, 1036));
  assert.equal(r.next(), undefined);
  r.push(p.subarray(1036));
  assert.equal(r.next()?.text.toString(), 'check_ok');
});

void test('a 64 KiB v4 packet pushed one byte at a time comes out whole (the reader is linear in the bytes received)', () => {
  const r = reader();
  const text = 'q'.repeat(65000);
  const p = encodePacket({ version: 4, type: QUERY_PACKET, result: 0, text });
  let got;
  for (let i = 0; i < p.length; i++) {
    r.push(p.subarray(i, i + 1));
    got = r.next() ?? got;
  }
  assert.equal(got?.text.toString(), text);
  assert.equal(r.buffered, 0);
});
