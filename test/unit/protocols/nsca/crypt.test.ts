/**
 * NSCA packets and encryption without a daemon (the daemon tests are in
 * test/integration/passive-nsca.test.ts): packet sizes and layout as nsca's
 * struct, the CRC as the daemon checks it, text cuts at character
 * boundaries, XOR's symmetry, our Rijndael at the 16-byte block equal to
 * OpenSSL's AES-256, and CFB state carried across the packets of one
 * connection.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { encodeDataPacket, packetSize, parseInitPacket } from '../../../../src/protocols/nsca/packet.js';
import { packetEncryptor } from '../../../../src/protocols/nsca/crypt.js';
import { RijndaelEncryptor } from '../../../../src/protocols/nsca/rijndael.js';
import { nscaMethod } from '../../../../src/formats/nsca-encryption.js';
import { inRange } from '../../../../src/in-range.js';

void test('packet sizes: 720 bytes at payload 512 (nsca 2.7), 4304 at 4096 (nsca 2.9+)', () => {
  assert.equal(packetSize(512), 720);
  assert.equal(packetSize(4096), 4304);
});

void test('a data packet: version 3, timestamp, status, NUL-terminated fields at their offsets, CRC over the packet with the CRC zeroed', () => {
  const p = encodeDataPacket({ host: 'h1', service: 'svc', code: 2, output: 'out|a=1' }, 1234567890, 512);
  assert.equal(p.readInt16BE(0), 3);
  assert.equal(p.readUInt32BE(8), 1234567890);
  assert.equal(p.readInt16BE(12), 2);
  assert.equal(p.toString('latin1', 14, 17), 'h1\0');
  assert.equal(p.toString('latin1', 78, 82), 'svc\0');
  assert.equal(p.toString('latin1', 206, 214), 'out|a=1\0');
  const zeroed = Buffer.from(p);
  zeroed.writeUInt32BE(0, 4);
  assert.equal(p.readUInt32BE(4), crc32(zeroed));
});

void test('texts are cut to their field less one byte, never inside a UTF-8 character', () => {
  const p = encodeDataPacket(
    { host: 'x'.repeat(100), service: 'é'.repeat(100), code: 0, output: 'y'.repeat(600) },
    1,
    512,
  );
  assert.equal(p.toString('latin1', 14, 14 + 64), `${'x'.repeat(63)}\0`);
  const service = p.subarray(78, 78 + 128);
  const end = service.indexOf(0);
  assert.equal(end, 126, 'é is two bytes: 63 of them');
  assert.equal(service.toString('utf8', 0, end), 'é'.repeat(63));
  assert.equal(p.toString('latin1', 206, 206 + 512), `${'y'.repeat(511)}\0`);
});

void test('init packet: 128 bytes of IV and a big-endian timestamp; anything else is refused', () => {
  const b = Buffer.alloc(132, 7);
  b.writeUInt32BE(42, 128);
  const init = parseInitPacket(b);
  assert.equal(init.iv.length, 128);
  assert.equal(init.timestamp, 42);
  assert.throws(() => parseInitPacket(Buffer.alloc(131)));
});

void test('xor: IV then password, from byte 0 of each packet; applying it twice gives the packet back', () => {
  const iv = randomBytes(128);
  const packet = randomBytes(720);
  const once = Buffer.from(packet);
  packetEncryptor(1, 'secret', iv)(once);
  assert.notDeepEqual(once, packet);
  assert.equal(once[0], inRange(packet, 0) ^ inRange(iv, 0) ^ 's'.charCodeAt(0));
  assert.equal(once[130], inRange(packet, 130) ^ inRange(iv, 2) ^ 'secret'.charCodeAt(130 % 6));
  packetEncryptor(1, 'secret', iv)(once);
  assert.deepEqual(once, packet);
});

void test('Rijndael with a 16-byte block is AES-256 (OpenSSL), block for block', () => {
  const key = randomBytes(32);
  const ours = new RijndaelEncryptor(16, key);
  for (let i = 0; i < 20; i++) {
    const block = randomBytes(16);
    const theirs = createCipheriv('aes-256-ecb', key, null).setAutoPadding(false).update(block);
    const mine = Uint8Array.from(block);
    ours.encryptBlock(mine);
    assert.deepEqual(Buffer.from(mine), theirs);
  }
});

void test('aes (method 14): AES-256 in 8-bit CFB with the password NUL-padded to 32 bytes, the state running on across packets', () => {
  const iv = randomBytes(128);
  const a = randomBytes(720);
  const b = randomBytes(720);
  const enc = packetEncryptor(14, 'pw', iv);
  const ea = Buffer.from(a);
  const eb = Buffer.from(b);
  enc(ea);
  enc(eb);
  const key = Buffer.alloc(32);
  key.write('pw');
  const dec = createDecipheriv('aes-256-cfb8', key, iv.subarray(0, 16));
  assert.deepEqual(Buffer.concat([dec.update(ea), dec.update(eb)]), Buffer.concat([a, b]));
});

void test('method names: NSClient++ aes/aes256 and rijndael128 are 14; aes128, blowfish and inherited object keys are not offered', () => {
  for (const n of ['aes', 'AES256', ' rijndael128 ', '14']) assert.equal(nscaMethod(n), 14, n);
  assert.equal(nscaMethod('rijndael256'), 16);
  assert.equal(nscaMethod('3des'), 3);
  for (const n of ['aes128', 'aes192', 'blowfish', 'constructor', 'toString', ''])
    assert.equal(nscaMethod(n), undefined, n);
});
