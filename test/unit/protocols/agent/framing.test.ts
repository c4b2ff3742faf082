import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  encodeFrame,
  errorBody,
  FLAG_CLOSE,
  FrameKind,
  HEADER_SIZE,
  kindName,
  peekHeader,
} from '../../../../src/protocols/agent/framing.js';
import { decode, encode } from '../../../../src/core/plugin/codec.js';
import { Plugin } from '../../../../src/core/plugin/generated/plugin.js';
import { inRange } from '../../../../src/in-range.js';

const request = (id: number): Uint8Array =>
  encode('QueryRequestMessage', {
    header: { type: Plugin.Header.Type.QUERY_REQUEST, version: 1, max_supported_version: 1, id },
    payload: [{ command: 'check_ok', arguments: ['a'] }],
  });

void test('a frame is magic AP, frame version 1, kind, flags, 3 reserved bytes, big-endian length, body', () => {
  const body = Uint8Array.from([1, 2, 3, 4, 5]);
  const frame = encodeFrame(FrameKind.ExecRequest, body, FLAG_CLOSE);
  assert.equal(frame.length, HEADER_SIZE + 5);
  assert.deepEqual([...frame.subarray(0, 12)], [0x41, 0x50, 1, 3, 1, 0, 0, 0, 0, 0, 0, 5]);
  assert.deepEqual([...frame.subarray(12)], [1, 2, 3, 4, 5]);
  const big = encodeFrame(FrameKind.Submit, new Uint8Array(0x010203));
  assert.deepEqual([...big.subarray(8, 12)], [0, 1, 2, 3]);
});

void test('kinds are numbered as documented and named', () => {
  assert.deepEqual(
    [
      FrameKind.QueryRequest,
      FrameKind.QueryResponse,
      FrameKind.ExecRequest,
      FrameKind.ExecResponse,
      FrameKind.Submit,
      FrameKind.SubmitAck,
      FrameKind.Error,
    ],
    [1, 2, 3, 4, 5, 6, 7],
  );
  assert.equal(kindName(6), 'SubmitAck');
  assert.equal(kindName(99), 'unknown kind 99');
});

void test('peekHeader reads id and versions of a valid message', () => {
  assert.deepEqual(peekHeader(request(4242)), { id: 4242, version: 1, maxSupportedVersion: 1 });
  assert.deepEqual(peekHeader(request(2 ** 40 + 3)), { id: 2 ** 40 + 3, version: 1, maxSupportedVersion: 1 });
});

void test('peekHeader recovers the id when the payload is broken or a required field is missing', () => {
  const good = request(77);
  // Cut the message inside the payload: the header (field 1) comes first and stays whole.
  const truncated = good.subarray(0, good.length - 3);
  assert.throws(() => decode('QueryRequestMessage', truncated), /invalid QueryRequestMessage/);
  assert.equal(peekHeader(truncated).id, 77);
  // A header without the required version, and a payload without the required command.
  const header = Plugin.Header.encode({ type: 1, version: 1, id: 9 }).finish();
  const noCommand = Uint8Array.from([0x0a, header.length, ...header, 0x12, 0x02, 0x1a, 0x00]);
  assert.throws(() => decode('QueryRequestMessage', noCommand), /command/);
  assert.equal(peekHeader(noCommand).id, 9);
});

void test('peekHeader never throws on garbage and finds nothing there', () => {
  assert.deepEqual(peekHeader(new Uint8Array(0)), {});
  assert.deepEqual(peekHeader(Uint8Array.from([0xff, 0xff, 0xff])), {});
  // Bounded: 200 random buffers.
  for (let i = 0; i < 200; i++) {
    const junk = Uint8Array.from({ length: i }, (_, j) => (j * 7919 + i * 31) & 0xff);
    assert.equal(typeof peekHeader(junk), 'object');
  }
});

void test('an Error body is a QueryResponseMessage with UNKNOWN, the message and the id when known', () => {
  const withId = decode('QueryResponseMessage', errorBody('bad thing', 12));
  assert.equal(Number(withId.header.id), 12);
  assert.equal(inRange(withId.payload, 0).result, Plugin.ResultCode.UNKNOWN);
  assert.equal(inRange(withId.payload, 0).message, 'bad thing');
  assert.equal(peekHeader(errorBody('no id')).id, undefined);
  assert.equal(inRange(decode('QueryResponseMessage', errorBody('no id')).payload, 0).message, 'no id');
});
