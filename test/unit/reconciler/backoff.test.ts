import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffMs, describeRetry, MAX_BACKOFF_MS } from '../../../src/reconciler/backoff.js';

void test('backoff doubles from 1 s and stops at 60 s', () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8].map(backoffMs), [1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000]);
  assert.equal(backoffMs(0), 1000);
  assert.equal(backoffMs(100), MAX_BACKOFF_MS);
  assert.equal(
    describeRetry(backoffMs(3), Date.parse('2026-01-01T00:00:00Z')),
    'next retry in 4 s (2026-01-01T00:00:04.000Z)',
  );
});
