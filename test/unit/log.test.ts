/**
 * The log buffer is a ring: it keeps the newest `capacity` entries in
 * order, drops the oldest on each write past it, and changing the capacity
 * keeps the newest entries; writing past a full buffer of 100,000 keeps it
 * exact (the write rate at 1,000,000, the largest `buffer size`, is in
 * test/bench/log-buffer).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LogSink } from '../../src/log.js';

void test('keeps the newest entries in order once full', () => {
  const sink = new LogSink(3, 'silent');
  for (let i = 1; i <= 7; i++) sink.write('info', 't', `m${i}`);
  assert.deepEqual(
    sink.entries().map((r) => r.message),
    ['m5', 'm6', 'm7'],
  );
  assert.deepEqual(
    sink.entries().map((r) => r.index),
    [5, 6, 7],
  );
  assert.equal(sink.size, 3);
});

void test('filters by level and returns a stable copy', () => {
  const sink = new LogSink(4, 'silent');
  sink.write('info', 't', 'a');
  sink.write('error', 't', 'b');
  const before = sink.entries();
  sink.write('warning', 't', 'c');
  assert.equal(before.length, 2, 'an earlier result does not grow');
  assert.deepEqual(
    sink.entries(new Set(['error', 'warning'])).map((r) => r.message),
    ['b', 'c'],
  );
});

void test('shrinking and growing the capacity keeps the newest entries', () => {
  const sink = new LogSink(5, 'silent');
  for (let i = 1; i <= 8; i++) sink.write('info', 't', `m${i}`);
  sink.capacity = 2;
  assert.deepEqual(
    sink.entries().map((r) => r.message),
    ['m7', 'm8'],
  );
  sink.capacity = 4;
  sink.write('info', 't', 'm9');
  sink.write('info', 't', 'm10');
  sink.write('info', 't', 'm11');
  assert.deepEqual(
    sink.entries().map((r) => r.message),
    ['m8', 'm9', 'm10', 'm11'],
  );
});

void test('a large buffer stays exact when written past', () => {
  const cap = 100_000;
  const sink = new LogSink(cap, 'silent');
  for (let i = 1; i <= cap + 1000; i++) sink.write('debug', 't', 'x');
  const all = sink.entries();
  assert.equal(all.length, cap);
  assert.equal(all[0]?.index, 1001);
  assert.equal(all.at(-1)?.index, cap + 1000);
});

void test('clear empties a wrapped ring; writing goes on in order', () => {
  const sink = new LogSink(3, 'silent');
  for (let i = 1; i <= 5; i++) sink.write('error', 't', `m${i}`);
  assert.equal(sink.clear(), 3);
  assert.deepEqual(sink.entries(), []);
  assert.equal(sink.errors, 0);
  for (let i = 6; i <= 9; i++) sink.write('info', 't', `m${i}`);
  assert.deepEqual(
    sink.entries().map((r) => r.message),
    ['m7', 'm8', 'm9'],
  );
});
