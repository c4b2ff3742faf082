import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writer } from 'protobufjs/minimal.js';
import { AgentError } from '../../../../src/errors.js';
import {
  answerHeader,
  decode,
  encode,
  header,
  messageHeader,
  resultToResponse,
  responseToResult,
  type MessageName,
} from '../../../../src/core/plugin/codec.js';
import { Plugin } from '../../../../src/core/plugin/generated/plugin.js';
import type { QueryResult } from '../../../../src/core/result.js';
import { plainMessage } from '../../../helpers/plain-message.js';
import { inRange } from '../../../../src/in-range.js';

/** Encode, decode, and compare the plain object form (int64 as numbers, enums as numbers). */
function roundTrip(name: MessageName, message: object): void {
  const bytes = encode(name, message as never);
  const decoded = decode(name, bytes);
  assert.deepEqual(plainMessage(decoded), message, `${name} round trip`);
}

const hdr = (type: Plugin.Header.Type): Plugin.Header.$Properties => ({
  type,
  version: 1,
  max_supported_version: 1,
  sender: 'a',
  recipient: 'b',
  id: 42,
});

void test('enumerations have the values of the specification', () => {
  assert.deepEqual({ ...Plugin.ResultCode }, { OK: 0, WARNING: 1, CRITCAL: 2, UNKNOWN: 3 });
  assert.deepEqual({ ...Plugin.DataType }, { INT: 1, STRING: 1, FLOAT: 1, BOOL: 1 });
  assert.deepEqual({ ...Plugin.Version }, { VERSION_1: 1 });
  assert.deepEqual(
    { ...Plugin.Header.Type },
    { QUERY_REQUEST: 1, QUERY_RESPONSE: 2, EXEC_REQUEST: 3, EXEC_RESPONSE: 4, LOG_MESSAGE: 5 },
  );
  assert.deepEqual(
    { ...Plugin.LogEntry.Entry.Level },
    { LOG_DEBUG: 0, LOG_INFO: 10, LOG_WARNING: 20, LOG_ERROR: 30, LOG_CRITICAL: 40 },
  );
});

void test('header() gives version 1, max supported 1 and fresh ids', () => {
  const a = header(Plugin.Header.Type.EXEC_REQUEST, { sender: 's', recipient: 'r' });
  const b = header(Plugin.Header.Type.EXEC_REQUEST);
  assert.equal(a.type, 3);
  assert.equal(a.version, 1);
  assert.equal(a.max_supported_version, 1);
  assert.equal(a.sender, 's');
  assert.equal(a.recipient, 'r');
  assert.notEqual(a.id, b.id);
  assert.equal(header(Plugin.Header.Type.LOG_MESSAGE, { id: 7 }).id, 7);
});

void test('QueryRequestMessage and ExecuteRequestMessage round trip', () => {
  const payload = [{ id: 1, command: 'check_ok', arguments: ['a b', 'ünïcode', ''] }, { command: 'check_x' }];
  roundTrip('QueryRequestMessage', { header: hdr(1), payload });
  roundTrip('ExecuteRequestMessage', { header: hdr(3), payload });
});

void test('QueryResponseMessage round trips with int, string, float and bool perf', () => {
  roundTrip('QueryResponseMessage', {
    header: hdr(2),
    payload: [
      {
        id: 3,
        command: 'check_cpu',
        arguments: ['warn=load>80'],
        result: 2,
        message: 'CRITICAL: load 99%',
        legacyPerf: "'load'=99%;80;90",
        perf: [
          {
            alias: 'int',
            type: 1,
            int_value: { value: -5, unit: 'B', warning: 10, critical: 20, minimum: -100, maximum: 9007199254740991 },
          },
          { alias: 'str', type: 1, string_value: { value: 'text' } },
          {
            alias: 'float',
            type: 1,
            float_value: { value: 0.25, unit: '%', warning: 80.5, critical: 90.5, minimum: 0, maximum: 100 },
          },
          { alias: 'bool', type: 1, bool_value: { value: true, unit: 'x', warning: false, critical: true } },
        ],
      },
      { command: 'check_ok', result: 0, message: '' },
    ],
  });
});

void test('ExecuteResponseMessage round trips with response data rows, cells and every AnyDataType', () => {
  roundTrip('ExecuteResponseMessage', {
    header: hdr(4),
    payload: [
      {
        id: 9,
        command: 'run',
        arguments: ['x'],
        result: 1,
        message: 'done',
        data: {
          alias: 'table',
          headers: { cells: [{ data: { type: 1, string_data: 'name' }, tag: 'h' }] },
          rows: [
            { cells: [{ data: { type: 1, int_data: -42 } }, { data: { type: 1, float_data: 1.5 } }] },
            { cells: [{ data: { type: 1, bool_data: true }, tag: 't' }, { data: { type: 1, string_data: '' } }] },
            {},
          ],
        },
      },
    ],
  });
});

void test('SubmitResponseMessage round trips', () => {
  roundTrip('SubmitResponseMessage', {
    header: hdr(2),
    payload: [
      {
        command: 'passive',
        result: 3,
        message: 'UNKNOWN: x',
        perf: [{ alias: 'a', type: 1, int_value: { value: 1 } }],
      },
    ],
  });
});

void test('LogEntry round trips with every level', () => {
  const entry = [0, 10, 20, 30, 40].map((level, i) => ({
    level,
    sender: `mod${i}`,
    file: 'f.ts',
    line: i + 1,
    message: `m${i}`,
    date: 1700000000 + i,
  }));
  roundTrip('LogEntry', { entry });
  roundTrip('LogEntry', {});
});

void test('QuerySettingsRequestMessage and QuerySettingsResponseMessage round trip', () => {
  roundTrip('QuerySettingsRequestMessage', {
    header: hdr(1),
    payload: [
      {
        id: 5,
        node: { node: { path: { path: '/settings/log', key: 'level' } } },
        default: 'info',
        fetch_descriptions: true,
        return_type: 1,
      },
      { node: { node: { expression: '/settings/*' } } },
      { node: {} },
    ],
  });
  roundTrip('QuerySettingsResponseMessage', {
    header: hdr(2),
    payload: [
      {
        id: 5,
        node: { node: { path: { path: '/settings/log', key: 'level' } } },
        value: { type: 1, string_data: 'debug' },
        title: 'level',
        description: 'd',
        required_type: 1,
      },
      { node: { node: { path: { path: '/settings/log' } } }, keys: { key: ['level', 'buffer size'] } },
    ],
  });
});

// ---- Field numbers: decode bytes written by hand with the spec's tag numbers.

void test('Header fields decode from the spec tag numbers (type 1, version 2, max 3, sender 17, recipient 18, id 19)', () => {
  const bytes = build(m(1, v(1, 2), v(2, 1), v(3, 1), s(17, 'from'), s(18, 'to'), v(19, 1234567890123)));
  const msg = decode('QueryResponseMessage', bytes);
  assert.equal(msg.header.type, Plugin.Header.Type.QUERY_RESPONSE);
  assert.equal(msg.header.version, 1);
  assert.equal(msg.header.max_supported_version, 1);
  assert.equal(msg.header.sender, 'from');
  assert.equal(msg.header.recipient, 'to');
  assert.equal(Number(msg.header.id), 1234567890123);
});

void test('QueryRequestMessage.Request fields: id 1, command 2, arguments 3', () => {
  const msg = decode('QueryRequestMessage', build(HEADER, m(2, v(1, 7), s(2, 'check_ok'), s(3, 'a'), s(3, 'b'))));
  assert.deepEqual(plain(msg.payload[0]), { id: 7, command: 'check_ok', arguments: ['a', 'b'] });
  const ex = decode('ExecuteRequestMessage', build(HEADER, m(2, v(1, 8), s(2, 'run'), s(3, 'x'))));
  assert.deepEqual(plain(ex.payload[0]), { id: 8, command: 'run', arguments: ['x'] });
});

void test('QueryResponseMessage.Response fields: id 1, command 2, result 3, message 4, perf 5, arguments 16, legacyPerf 17', () => {
  const perfInt = m(5, s(1, 'i'), v(2, 1), m(3, v(1, 10), s(2, 'ms'), v(3, 20), v(4, 30), v(6, 1), v(7, 99)));
  const perfStr = m(5, s(1, 's'), v(2, 1), m(4, s(1, 'txt')));
  const perfFloat = m(5, s(1, 'f'), v(2, 1), m(5, d(1, 1.5), s(2, '%'), d(3, 2.5), d(4, 3.5), d(6, 0.5), d(7, 9.5)));
  const perfBool = m(5, s(1, 'b'), v(2, 1), m(6, v(1, 1), s(2, 'u'), v(3, 0), v(4, 1)));
  const bytes = build(
    HEADER,
    m(
      2,
      v(1, 4),
      s(2, 'check_x'),
      v(3, 2),
      s(4, 'CRITICAL: x'),
      perfInt,
      perfStr,
      perfFloat,
      perfBool,
      s(16, 'arg'),
      s(17, "'i'=10ms"),
    ),
  );
  const r = plain(decode('QueryResponseMessage', bytes).payload[0]);
  assert.deepEqual(r, {
    id: 4,
    command: 'check_x',
    result: 2,
    message: 'CRITICAL: x',
    arguments: ['arg'],
    legacyPerf: "'i'=10ms",
    perf: [
      { alias: 'i', type: 1, int_value: { value: 10, unit: 'ms', warning: 20, critical: 30, minimum: 1, maximum: 99 } },
      { alias: 's', type: 1, string_value: { value: 'txt' } },
      {
        alias: 'f',
        type: 1,
        float_value: { value: 1.5, unit: '%', warning: 2.5, critical: 3.5, minimum: 0.5, maximum: 9.5 },
      },
      { alias: 'b', type: 1, bool_value: { value: true, unit: 'u', warning: false, critical: true } },
    ],
  });
  // The same payload in a SubmitResponseMessage (header 1, payload 2).
  assert.equal(decode('SubmitResponseMessage', bytes).payload[0]?.legacyPerf, "'i'=10ms");
});

void test('ExecuteResponseMessage.Response fields: id 2, command 5, result 9, message 10, data 11, arguments 16', () => {
  const cell = (...f: Field[]): Field => m(1, m(1, ...f));
  const data = m(
    11,
    s(1, 'tbl'),
    m(2, m(1, m(1, v(1, 1), s(2, 'hdr')), s(2, 'tag'))),
    m(3, cell(v(1, 1), v(3, -7)), cell(v(1, 1), d(4, 2.25)), cell(v(1, 1), v(5, 1))),
  );
  const bytes = build(HEADER, m(2, v(2, 11), s(5, 'run'), v(9, 1), s(10, 'WARN'), data, s(16, 'a1')));
  const r = plain(decode('ExecuteResponseMessage', bytes).payload[0]);
  assert.deepEqual(r, {
    id: 11,
    command: 'run',
    result: 1,
    message: 'WARN',
    arguments: ['a1'],
    data: {
      alias: 'tbl',
      headers: { cells: [{ data: { type: 1, string_data: 'hdr' }, tag: 'tag' }] },
      rows: [
        {
          cells: [
            { data: { type: 1, int_data: -7 } },
            { data: { type: 1, float_data: 2.25 } },
            { data: { type: 1, bool_data: true } },
          ],
        },
      ],
    },
  });
});

void test('LogEntry.Entry fields: level 1, sender 2, file 3, line 4, message 5, date 6', () => {
  const bytes = build(m(1, v(1, 40), s(2, 'mod'), s(3, 'x.ts'), v(4, 12), s(5, 'boom'), v(6, 1700000000)));
  assert.deepEqual(plain(decode('LogEntry', bytes)), {
    entry: [{ level: 40, sender: 'mod', file: 'x.ts', line: 12, message: 'boom', date: 1700000000 }],
  });
});

void test('settings messages: Request id 1, node 2, default 3, fetch_descriptions 4, return_type 17; Response value 4, keys 5, title 6, description 7, required_type 17', () => {
  const node = m(2, m(1, m(1, s(1, '/settings/log'), s(2, 'level')), s(2, 'expr')));
  const req = decode(
    'QuerySettingsRequestMessage',
    build(HEADER, m(2, v(1, 3), node, s(3, 'dflt'), v(4, 1), v(17, 1))),
  );
  assert.deepEqual(plain(req.payload[0]), {
    id: 3,
    node: { node: { path: { path: '/settings/log', key: 'level' }, expression: 'expr' } },
    default: 'dflt',
    fetch_descriptions: true,
    return_type: 1,
  });
  const res = decode(
    'QuerySettingsResponseMessage',
    build(
      HEADER,
      m(2, v(1, 3), node, m(4, v(1, 1), s(2, 'v')), m(5, s(1, 'k1'), s(1, 'k2')), s(6, 'T'), s(7, 'D'), v(17, 1)),
    ),
  );
  assert.deepEqual(plain(res.payload[0]), {
    id: 3,
    node: { node: { path: { path: '/settings/log', key: 'level' }, expression: 'expr' } },
    value: { type: 1, string_data: 'v' },
    keys: { key: ['k1', 'k2'] },
    title: 'T',
    description: 'D',
    required_type: 1,
  });
});

void test('encoding writes the spec tag numbers (bytes equal to the hand-built ones)', () => {
  const ours = encode('QueryResponseMessage', {
    header: { type: 2, version: 1 },
    payload: [{ command: 'c', result: 1, message: 'm', arguments: ['x'], legacyPerf: 'p' }],
  });
  // protobufjs writes fields in tag-number order.
  const hand = build(m(1, v(1, 2), v(2, 1)), m(2, s(2, 'c'), v(3, 1), s(4, 'm'), s(16, 'x'), s(17, 'p')));
  assert.deepEqual([...ours], [...hand]);
});

// ---- Violations: every one is an AgentError AGENT_ERR_PROTOBUF with a clear message.

const protobufError =
  (re: RegExp) =>
  (err: unknown): boolean => {
    assert.ok(err instanceof AgentError, `expected an AgentError, got ${String(err)}`);
    assert.equal(err.code, 'AGENT_ERR_PROTOBUF');
    assert.match(err.message, re);
    return true;
  };

void test('encode verifies required fields and types', () => {
  assert.throws(
    () => encode('QueryResponseMessage', { header: hdr(2), payload: [{ command: 'c', message: 'm' }] } as never),
    protobufError(/^invalid QueryResponseMessage message: .*result/),
  );
  assert.throws(
    () => encode('QueryRequestMessage', { header: { type: 1 }, payload: [] } as never),
    protobufError(/^invalid QueryRequestMessage message: .*version/),
  );
  assert.throws(() => encode('QueryRequestMessage', { payload: [] } as never), protobufError(/header/));
  assert.throws(
    () => encode('QueryRequestMessage', { header: hdr(1), payload: [{ command: 42 }] } as never),
    protobufError(/command/),
  );
  assert.throws(
    () => encode('LogEntry', { entry: [{ message: 'no level' }] } as never),
    protobufError(/^invalid LogEntry message: .*level/),
  );
});

void test('decode rejects missing required fields', () => {
  // A Response without result (field 3).
  const noResult = build(HEADER, m(2, s(2, 'c'), s(4, 'm')));
  assert.throws(
    () => decode('QueryResponseMessage', noResult),
    protobufError(/^invalid QueryResponseMessage message: missing required 'result'/),
  );
  // A Header without version (field 2).
  const noVersion = build(m(1, v(1, 1)));
  assert.throws(() => decode('QueryRequestMessage', noVersion), protobufError(/missing required 'version'/));
  // No header at all.
  assert.throws(() => decode('QueryRequestMessage', new Uint8Array(0)), protobufError(/missing required 'header'/));
  // A perf entry without alias.
  assert.throws(
    () => decode('QueryResponseMessage', build(HEADER, m(2, s(2, 'c'), v(3, 0), s(4, 'm'), m(5, v(2, 1))))),
    protobufError(/alias/),
  );
});

void test('decode rejects truncated and random bytes without raw exceptions', () => {
  const good = encode('QueryResponseMessage', {
    header: hdr(2),
    payload: [
      resultToResponse({ command: 'check_ok', result: 0, message: 'OK: fine', perf: [{ alias: 'a', value: 1 }] }),
    ],
  });
  // A cut inside a field fails; a cut at a field boundary is a shorter valid message (protobuf has no end marker).
  let failed = 0;
  for (let cut = 1; cut < good.length; cut++) {
    try {
      const shorter = decode('QueryResponseMessage', good.subarray(0, cut));
      assert.equal(shorter.payload.length, 0, `cut at ${cut} decoded a partial payload`);
    } catch (err) {
      protobufError(/^invalid QueryResponseMessage message: /)(err);
      failed++;
    }
  }
  assert.ok(failed >= good.length - 2, `${failed} of ${good.length - 1} cuts failed`);
  let seed = 12345;
  const rand = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0xff;
  for (let i = 0; i < 300; i++) {
    const bytes = Uint8Array.from({ length: 1 + (i % 64) }, rand);
    for (const name of ['QueryResponseMessage', 'ExecuteRequestMessage', 'QuerySettingsResponseMessage'] as const) {
      assert.throws(
        () => decode(name, bytes),
        protobufError(new RegExp(`^invalid ${name} message: `)),
        `random buffer ${i}`,
      );
    }
  }
});

// ---- Neutral QueryResult <-> Response.

void test('resultToResponse: integers as IntValue, fractions as FloatValue, strings as StringValue', () => {
  const r = resultToResponse(
    {
      command: 'c',
      result: 1,
      message: 'm',
      perf: [
        { alias: 'i', value: 5, unit: 'B', warning: 10, critical: 20, minimum: 0, maximum: 100 },
        { alias: 'f', value: 0.5, unit: '%', warning: 1, critical: 2 },
        { alias: 's', value: 'up' },
      ],
    },
    3,
  );
  assert.equal(r.id, 3);
  assert.deepEqual(r.perf?.[0], {
    alias: 'i',
    type: 1,
    int_value: { value: 5, unit: 'B', warning: 10, critical: 20, minimum: 0, maximum: 100 },
  });
  assert.deepEqual(r.perf[1], {
    alias: 'f',
    type: 1,
    float_value: { value: 0.5, unit: '%', warning: 1, critical: 2 },
  });
  assert.deepEqual(r.perf[2], { alias: 's', type: 1, string_value: { value: 'up' } });
});

void test('resultToResponse and responseToResult round trip through bytes', () => {
  const results: QueryResult[] = [
    { command: 'check_ok', result: 0, message: 'OK', perf: [] },
    {
      command: 'check_disk',
      result: 2,
      message: 'CRITICAL: /',
      arguments: ['drive=/'],
      perf: [
        { alias: 'used', value: 812, unit: 'MB', warning: 700, critical: 800, minimum: 0, maximum: 1000 },
        { alias: 'neg', value: -3 },
        { alias: 'load', value: 1.25, warning: 2.5, critical: 3.75, minimum: 0 },
        { alias: 'state', value: 'degraded' },
        { alias: 'zero', value: 0, warning: 0, critical: 0 },
      ],
    },
    { command: 'check_x', result: 3, message: '', perf: [{ alias: 'big', value: 2 ** 60, maximum: 2 ** 61 }] },
  ];
  for (const r of results) {
    const bytes = encode('QueryResponseMessage', { header: hdr(2), payload: [resultToResponse(r, 1)] });
    const back = responseToResult(inRange(decode('QueryResponseMessage', bytes).payload, 0));
    assert.deepEqual(back, r);
  }
});

void test('a result code outside the enumeration on the wire is a missing required field (proto2)', () => {
  const bytes = build(HEADER, m(2, s(2, 'c'), v(3, 7), s(4, 'm')));
  assert.throws(() => decode('QueryResponseMessage', bytes), protobufError(/missing required 'result'/));
});

void test('responseToResult maps unknown result codes to UNKNOWN and bool perf to 0/1', () => {
  const bytes = build(HEADER, m(2, s(2, 'c'), v(3, 0), s(4, 'm'), m(5, s(1, 'b'), v(2, 1), m(6, v(1, 1), s(2, 'u')))));
  const r = responseToResult(inRange(decode('QueryResponseMessage', bytes).payload, 0));
  assert.equal(r.result, 0);
  assert.deepEqual(r.perf, [{ alias: 'b', value: 1, unit: 'u' }]);
  assert.equal(responseToResult({ command: 'c', result: 7 as Plugin.ResultCode, message: 'm' }).result, 3);
  // No result at all (a plain object from JSON, say) is UNKNOWN, as everywhere (core/result.ts toStatus), never OK.
  assert.equal(
    responseToResult({ command: 'c', result: null as unknown as Plugin.ResultCode, message: 'm' }).result,
    3,
  );
  assert.equal(
    responseToResult({ command: 'c', message: 'm' } as Plugin.QueryResponseMessage.Response.$Properties).result,
    3,
  );
});

// ---- Helpers: a tiny protobuf writer driven by field numbers.

type Field =
  | { no: number; kind: 'varint'; value: number }
  | { no: number; kind: 'string'; value: string }
  | { no: number; kind: 'double'; value: number }
  | { no: number; kind: 'message'; value: Field[] };

function v(no: number, value: number): Field {
  return { no, kind: 'varint', value };
}
function s(no: number, value: string): Field {
  return { no, kind: 'string', value };
}
function d(no: number, value: number): Field {
  return { no, kind: 'double', value };
}
function m(no: number, ...value: Field[]): Field {
  return { no, kind: 'message', value };
}

/** A valid Header as field 1 of the enclosing message. */
const HEADER = m(1, v(1, 1), v(2, 1));

function build(...fields: Field[]): Uint8Array {
  const w = Writer.create();
  write(w, fields);
  return w.finish();
}

function write(w: Writer, fields: Field[]): void {
  for (const f of fields) {
    switch (f.kind) {
      case 'varint':
        w.uint32(f.no << 3).int64(f.value);
        break;
      case 'double':
        w.uint32((f.no << 3) | 1).double(f.value);
        break;
      case 'string':
        w.uint32((f.no << 3) | 2).string(f.value);
        break;
      case 'message':
        w.uint32((f.no << 3) | 2).fork();
        write(w, f.value);
        w.ldelim();
        break;
    }
  }
}

/** Plain object form of a decoded message: int64 as numbers, enums as numbers. */
function plain(message: unknown): object {
  return plainMessage(message) as object;
}

void test('one header builder: absent or empty fields are left out; an answer keeps the id and swaps sender and recipient', () => {
  assert.deepEqual(messageHeader(Plugin.Header.Type.QUERY_RESPONSE, { id: undefined, sender: '' }), {
    type: Plugin.Header.Type.QUERY_RESPONSE,
    version: 1,
    max_supported_version: 1,
  });
  assert.deepEqual(messageHeader(Plugin.Header.Type.QUERY_REQUEST, { id: 7, sender: 'a' }), {
    type: Plugin.Header.Type.QUERY_REQUEST,
    version: 1,
    max_supported_version: 1,
    id: 7,
    sender: 'a',
  });
  assert.deepEqual(
    answerHeader(
      { type: Plugin.Header.Type.EXEC_REQUEST, version: 1, id: 9, sender: 'client', recipient: 'agent' },
      Plugin.Header.Type.EXEC_RESPONSE,
    ),
    {
      type: Plugin.Header.Type.EXEC_RESPONSE,
      version: 1,
      max_supported_version: 1,
      id: 9,
      sender: 'agent',
      recipient: 'client',
    },
  );
});

void test('int64 fields decode as plain numbers (no long.js): ids and integer performance data', () => {
  const bytes = encode('QueryResponseMessage', {
    header: { ...hdr(Plugin.Header.Type.QUERY_RESPONSE), id: 2 ** 40 + 7 },
    payload: [
      resultToResponse({
        command: 'check_big',
        result: 0,
        message: 'fine',
        perf: [{ alias: 'bytes', value: 2 ** 50 + 3 }],
      }),
    ],
  });
  const decoded = decode('QueryResponseMessage', bytes);
  assert.equal(decoded.header.id, 2 ** 40 + 7);
  const response = inRange(decoded.payload, 0);
  const value = inRange(response.perf ?? [], 0).int_value?.value;
  assert.equal(typeof value, 'number');
  assert.equal(value, 2 ** 50 + 3);
  assert.deepEqual(responseToResult(response).perf, [{ alias: 'bytes', value: 2 ** 50 + 3 }]);
});
