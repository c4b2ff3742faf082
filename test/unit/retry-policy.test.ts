import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelay, withRetries, type BackoffPolicy } from '../../src/retry-policy.js';
import { MODULE_RETRY } from '../../src/reconciler/backoff.js';
import { CONNECT_RETRY } from '../../src/protocols/connect-retry.js';

const FAST: BackoffPolicy = { firstMs: 1, factor: 2, maxMs: 4, jitter: 0 };

void test('backoffDelay: exponential from firstMs, capped at maxMs, failures below 1 count as 1', () => {
  const p: BackoffPolicy = { firstMs: 100, factor: 3, maxMs: 1000, jitter: 0 };
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5].map((n) => backoffDelay(p, n)),
    [100, 100, 300, 900, 1000, 1000],
  );
  assert.deepEqual(
    [1, 2, 3, 7, 8].map((n) => backoffDelay(MODULE_RETRY, n)),
    [1000, 2000, 4000, 60_000, 60_000],
  );
});

void test('backoffDelay: jitter adds up to its fraction of the capped wait', () => {
  assert.equal(
    backoffDelay(CONNECT_RETRY, 1, () => 0),
    100,
  );
  assert.equal(
    backoffDelay(CONNECT_RETRY, 1, () => 0.999),
    149,
  );
  assert.equal(
    backoffDelay(CONNECT_RETRY, 2, () => 0.5),
    250,
  );
  assert.equal(
    backoffDelay(CONNECT_RETRY, 10, () => 0.999),
    1499,
  );
  const full: BackoffPolicy = { firstMs: 5, factor: 2, maxMs: 100, jitter: 1 };
  assert.equal(
    backoffDelay(full, 6, () => 0.5),
    150,
  );
});

void test('withRetries: retries a retryable failure `retries` times, then throws the latest failure', async () => {
  const seen: number[] = [];
  await assert.rejects(
    withRetries(
      async (n) => {
        seen.push(n);
        throw new Error(`failure ${n}`);
      },
      { retries: 2, policy: FAST, retryable: () => true },
    ),
    /^Error: failure 3$/,
  );
  assert.deepEqual(seen, [1, 2, 3]);
});

void test('withRetries: resolves with the first success; 0 retries is one attempt', async () => {
  let calls = 0;
  const value = await withRetries(
    async (n) => {
      calls++;
      if (n < 3) throw new Error('refused');
      return 'answer';
    },
    { retries: 5, policy: FAST, retryable: () => true },
  );
  assert.equal(value, 'answer');
  assert.equal(calls, 3);
  calls = 0;
  await assert.rejects(
    withRetries(async () => (calls++, Promise.reject(new Error('once'))), {
      retries: 0,
      policy: FAST,
      retryable: () => true,
    }),
    /once/,
  );
  assert.equal(calls, 1);
});

void test('withRetries: a failure that is not retryable is thrown at once', async () => {
  let calls = 0;
  const fatal = new Error('certificate rejected');
  await assert.rejects(
    withRetries(
      async () => {
        calls++;
        throw fatal;
      },
      { retries: 3, policy: FAST, retryable: (err) => err !== fatal },
    ),
    (err) => err === fatal,
  );
  assert.equal(calls, 1);
});

void test('withRetries: no attempt after the deadline or once the signal is aborted', async () => {
  let calls = 0;
  await assert.rejects(
    withRetries(
      async () => {
        calls++;
        throw new Error('late');
      },
      {
        retries: 5,
        policy: { ...FAST, firstMs: 60_000, maxMs: 60_000 },
        retryable: () => true,
        deadline: performance.now() + 20,
      },
    ),
    /late/,
  );
  assert.equal(calls, 1, 'the wait is cut at the deadline and no attempt starts after it');

  const controller = new AbortController();
  calls = 0;
  await assert.rejects(
    withRetries(
      async () => {
        calls++;
        setImmediate(() => controller.abort());
        throw new Error('refused while stopping');
      },
      {
        retries: 5,
        policy: { ...FAST, firstMs: 60_000, maxMs: 60_000 },
        retryable: () => true,
        signal: controller.signal,
      },
    ),
    /refused while stopping/,
  );
  assert.equal(calls, 1, 'an abort during the wait ends the retries with the latest failure');
});
