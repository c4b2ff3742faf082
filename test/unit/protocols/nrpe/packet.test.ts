import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import {
  crcMatches,
  encodePacket,
  formatRequest,
  parseRequest,
  QUERY_PACKET,
  RESPONSE_PACKET,
} from '../../../../src/protocols/nrpe/packet.js';

void test('zlib.crc32 is the CRC-32 NRPE uses (standard check value)', () => {
  assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
});

/** [description, packet, length, crc] from nrpe-facts §1.4, confirmed against check_nrpe and the daemon. */
const vectors: Array<[string, Buffer, number, number]> = [
  ['v4 query check_ok', encodePacket({ version: 4, type: QUERY_PACKET, text: 'check_ok' }), 1036, 0xbb431219],
  ['v3 query check_ok', encodePacket({ version: 3, type: QUERY_PACKET, text: 'check_ok' }), 1036, 0xf07150a8],
  ['v4 query _NRPE_CHECK', encodePacket({ version: 4, type: QUERY_PACKET, text: '_NRPE_CHECK' }), 1036, 0x5bd51854],
  ['v2 query check_ok', encodePacket({ version: 2, type: QUERY_PACKET, text: 'check_ok' }), 1036, 0x1cd850cb],
  [
    'v4 response',
    encodePacket({ version: 4, type: RESPONSE_PACKET, result: 0, text: 'OK: fine|x=1;2;3' }),
    33,
    0x2adc7ea5,
  ],
];
for (const [name, packet, length, crc] of vectors) {
  void test(`encodes ${name} as the reference implementation does`, () => {
    assert.equal(packet.length, length);
    assert.equal(packet.readUInt32BE(4), crc);
    assert.ok(crcMatches(packet));
  });
}

void test('the daemon v4 response bytes are what we encode', () => {
  const wire = Buffer.from('000400022adc7ea500000000000000114f4b3a2066696e657c783d313b323b3300', 'hex');
  assert.deepEqual(encodePacket({ version: 4, type: RESPONSE_PACKET, text: 'OK: fine|x=1;2;3' }), wire);
});

void test('v2 text is cut to payload length - 1 bytes; payload length sets the size', () => {
  const p = encodePacket({ version: 2, type: RESPONSE_PACKET, text: 'x'.repeat(3000) });
  assert.equal(p.length, 1036);
  assert.equal(p.subarray(10, 1034).indexOf(0), 1023);
  assert.equal(encodePacket({ version: 2, type: QUERY_PACKET, text: 'a', payloadLength: 2048 }).length, 2060);
});

void test('v4 responses are cut to 65535 bytes of text', () => {
  const p = encodePacket({ version: 4, type: RESPONSE_PACKET, text: 'y'.repeat(70000) });
  assert.equal(p.readInt32BE(12), 65536);
  assert.equal(p.length, 16 + 65536);
});

void test('a changed byte breaks the CRC, v2 padding included', () => {
  const p = encodePacket({ version: 2, type: QUERY_PACKET, text: 'check_ok' });
  p[1035] = 0x41;
  assert.equal(crcMatches(p), false);
});

void test('request text: command!arg!arg and the _NRPE_CHECK default', () => {
  assert.deepEqual(parseRequest('check_disk!C:!80%'), { command: 'check_disk', args: ['C:', '80%'] });
  assert.deepEqual(parseRequest('check_ok'), { command: 'check_ok', args: [] });
  assert.equal(formatRequest('check_a', ['x', 'y']), 'check_a!x!y');
  assert.equal(formatRequest(''), '_NRPE_CHECK');
});
