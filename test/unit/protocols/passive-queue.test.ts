/**
 * The passive queue: push never waits; beyond capacity the oldest go and
 * are counted; a failed batch goes back to the front in order and is
 * retried after the backoff; a batch that is not full waits up to lingerMs
 * for more; a batch refused for good counts once, as rejected, with its
 * error as the last one; close stops the loop.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassiveQueue } from '../../../src/protocols/passive-queue.js';
import { waitUntil } from '../../helpers/wait-until.js';

const FAST = { firstMs: 10, factor: 2, maxMs: 40, jitter: 0 };

void test('push returns at once; beyond capacity the oldest are dropped and counted', async () => {
  const sent: number[][] = [];
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const drops: number[] = [];
  const q = new PassiveQueue<number>({
    capacity: 3,
    batch: 10,
    policy: FAST,
    send: async (items) => {
      await gate;
      sent.push([...items]);
    },
    onDrop: (_now, total) => drops.push(total),
  });
  q.push([1]); // taken by the sender, which waits on the gate
  q.push([2, 3, 4, 5]);
  assert.deepEqual(q.stats().queued, 3);
  assert.deepEqual(drops, [1]);
  release();
  await waitUntil(() => q.stats().queued === 0 && sent.length === 2, 2000, 'both batches');
  assert.deepEqual(sent, [[1], [3, 4, 5]]);
  assert.equal(q.stats().dropped, 1);
  await q.close();
});

void test('a failed batch goes back to the front in order and is retried after the backoff', async () => {
  let attempts = 0;
  const sent: number[] = [];
  const waits: number[] = [];
  const q = new PassiveQueue<number>({
    capacity: 100,
    batch: 2,
    policy: FAST,
    send: async (items) => {
      attempts++;
      if (attempts <= 2) throw new Error('refused');
      sent.push(...items);
    },
    onFailure: (_err, wait) => waits.push(wait),
  });
  q.push([1, 2, 3]);
  await waitUntil(() => sent.length === 3, 2000, 'everything sent');
  assert.deepEqual(sent, [1, 2, 3]);
  assert.deepEqual(waits, [10, 20]);
  assert.equal(q.stats().failures, 0);
  assert.equal(q.stats().lastError, 'refused');
  await q.close();
});

void test('a batch refused for good (permanent): counted once as rejected, not sent, not retried; its error is the last', async () => {
  const attempts: number[][] = [];
  const rejected: number[] = [];
  const q = new PassiveQueue<number>({
    capacity: 10,
    batch: 2,
    policy: FAST,
    send: async (items) => {
      attempts.push([...items]);
      if (items.includes(1)) throw Object.assign(new Error('HTTP 401: Unauthorized'), { permanent: true });
    },
    onReject: (_err, count) => rejected.push(count),
  });
  q.push([1, 2, 3]);
  await waitUntil(() => q.stats().queued === 0 && attempts.length === 2, 2000, 'both batches');
  assert.deepEqual(attempts, [[1, 2], [3]]);
  assert.deepEqual(rejected, [2]);
  const s = q.stats();
  assert.deepEqual([s.sent, s.rejected, s.failures, s.lastError], [1, 2, 0, 'HTTP 401: Unauthorized']);
  await q.close();
});

void test('lingerMs: results pushed within the wait share one batch', async () => {
  const batches: number[][] = [];
  const q = new PassiveQueue<number>({
    capacity: 100,
    batch: 10,
    lingerMs: 100,
    policy: FAST,
    send: async (items) => void batches.push([...items]),
  });
  q.push([1]);
  q.push([2]);
  setTimeout(() => q.push([3]), 20);
  await waitUntil(() => batches.flat().length === 3, 2000, 'three results');
  assert.deepEqual(batches, [[1, 2, 3]]);
  await q.close();
});

void test('close stops retrying and drops what is queued', async () => {
  let attempts = 0;
  const q = new PassiveQueue<number>({
    capacity: 10,
    batch: 1,
    policy: { firstMs: 60_000, factor: 1, maxMs: 60_000, jitter: 0 },
    send: async () => {
      attempts++;
      throw new Error('down');
    },
  });
  q.push([1]);
  await waitUntil(() => attempts === 1, 2000, 'first attempt');
  await q.close();
  assert.equal(q.stats().queued, 0);
  q.push([2]);
  assert.equal(q.stats().queued, 0, 'a closed queue takes nothing');
});
