import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cutUtf8, hostState, splitOutput, toNagios, statusFromExitCode, toStatus } from '../../../src/core/result.js';

const perf = [{ alias: 'len', value: 3000, minimum: 0 }];

void test('toNagios keeps the plugin layout: perf data on the first line, long text after it', () => {
  const r = splitOutput(`OK: long output|len=3000;;;0\nline 1\nline 2\n`);
  assert.equal(toNagios(r), "OK: long output|'len'=3000;;;0\nline 1\nline 2");
  assert.equal(toNagios({ message: 'one line', perf: [] }), 'one line');
  assert.equal(toNagios({ message: 'a\nb', perf: [] }), 'a\nb');
});

void test('toNagios cuts the long text, never the first line perf data', () => {
  const message = `OK: long output\n${'x'.repeat(3000)}`;
  const text = toNagios({ message, perf }, 1023);
  assert.equal(Buffer.byteLength(text), 1023);
  assert.ok(text.startsWith("OK: long output|'len'=3000;;;0\nxxx"));
});

void test('toNagios cuts the first line before the perf data when the first line is too long', () => {
  const text = toNagios({ message: 'y'.repeat(2000), perf }, 100);
  assert.equal(Buffer.byteLength(text), 100);
  assert.ok(text.endsWith("|'len'=3000;;;0"));
});

void test('toNagios keeps whole perf items when perf data alone is over the limit', () => {
  const many = Array.from({ length: 50 }, (_, i) => ({ alias: `item${i}`, value: i }));
  const text = toNagios({ message: 'OK: many', perf: many }, 120);
  assert.ok(Buffer.byteLength(text) <= 120);
  assert.match(text, /^OK: many\|'item0'=0 'item1'=1 .*'item\d+'=\d+$/);
});

void test('cutUtf8 never splits a character', () => {
  assert.equal(cutUtf8('aé', 2), 'a');
  assert.equal(cutUtf8('aé', 3), 'aé');
  assert.equal(cutUtf8('€€', 4), '€');
});

void test('toStatus: 0..3 as is from numbers, numeric strings and int64 values; anything else UNKNOWN', () => {
  assert.deepEqual([0, 1, 2, 3].map(toStatus), [0, 1, 2, 3]);
  assert.deepEqual(['0', '2'].map(toStatus), [0, 2]);
  assert.equal(toStatus({ toString: () => '1', valueOf: () => 1 }), 1);
  for (const bad of [4, -1, 1.5, 255, 'x', '', null, undefined, Number.NaN])
    assert.equal(toStatus(bad), 3, String(bad));
});

void test('statusFromExitCode is the same clamp: a killed process (no code) is UNKNOWN', () => {
  assert.equal(statusFromExitCode(2), 2);
  assert.equal(statusFromExitCode(127), 3);
  assert.equal(statusFromExitCode(null), 3);
});

void test('hostState: OK is UP, anything else DOWN; keepUnreachable keeps CRITICAL as 2 alone', () => {
  assert.deepEqual(
    [0, 1, 2, 3].map((c) => hostState(c)),
    [0, 1, 1, 1],
  );
  assert.deepEqual(
    [0, 1, 2, 3].map((c) => hostState(c, true)),
    [0, 1, 2, 1],
  );
});
