import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isoTime } from '../../src/iso-time.js';

const same = (ms: number): void => assert.equal(isoTime(ms), new Date(ms).toISOString(), `at ${ms}`);

void test('isoTime writes what toISOString writes around the edges of days, months, leap years and eras', () => {
  const starts = [
    '1970-01-01',
    '1969-12-31',
    '2000-02-28',
    '2000-02-29',
    '2000-03-01',
    '1900-02-28',
    '1900-03-01',
    '2024-02-29',
    '2026-11-29',
    '2100-03-01',
    '1600-02-29',
    '0001-01-01',
    '0000-03-01',
    '9999-12-31',
  ];
  for (const day of starts) {
    const t = Date.parse(`${day}T00:00:00.000Z`);
    for (const offset of [-86_400_000, -1, 0, 1, 999, 1000, 59_999, 3_599_999, 43_200_000, 86_399_999])
      if (t + offset <= 253_402_300_799_999 && t + offset >= -62_167_219_200_000) same(t + offset);
  }
  same(0);
  same(Date.now());
});

void test('isoTime agrees with toISOString on 20,000 random times of years 0000-9999', () => {
  const first = -62_167_219_200_000;
  const span = 253_402_300_799_999 - first;
  for (let i = 0; i < 20_000; i++) same(first + Math.floor(Math.random() * span));
});

void test('isoTime keeps whole milliseconds as Date does, and leaves other years and NaN to Date', () => {
  same(1.9);
  same(-1.9);
  same(1_700_000_000_123.999);
  // Outside 0000-9999 toISOString writes six-digit signed years; isoTime hands those to Date.
  same(-62_167_219_200_001);
  same(253_402_300_800_000);
  same(8.64e15);
  assert.throws(() => isoTime(Number.NaN), RangeError);
  assert.throws(() => isoTime(8.64e15 + 1), RangeError);
});
