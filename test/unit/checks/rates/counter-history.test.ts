import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CounterHistory, counterRate } from '../../../../src/checks/rates/counter-history.js';
import { parseNetDev } from '../../../../src/checks/system/kernel-counters.js';
import { readFile } from 'node:fs/promises';
import { inRange } from '../../../../src/in-range.js';

/** A counter that grows by `step` per read, like a kernel counter under steady load. */
function growing(step: number): () => Promise<Map<string, number>> {
  let n = 1000;
  return async () => {
    n += step;
    return new Map([['c', n]]);
  };
}

void test('the first call samples over the short interval, later calls reuse its readings', async () => {
  const h = new CounterHistory({ firstIntervalMs: 50, minBaseMs: 10, spacingMs: 0 });
  const read = growing(100);
  const first = await h.window('s', read, 60);
  assert.equal(first.sampledNow, true);
  assert.ok(first.seconds >= 0.04 && first.seconds < 1, String(first.seconds));
  assert.equal(first.current.values.get('c')! - first.base.values.get('c')!, 100);
  await new Promise((r) => setTimeout(r, 20));
  const second = await h.window('s', read, 60);
  assert.equal(second.sampledNow, false);
  assert.equal(second.base, first.base, 'the oldest reading inside the lookback is the baseline');
  assert.equal(second.current.values.get('c')! - second.base.values.get('c')!, 200);
  assert.ok(counterRate(second, 'c')! > 0);
});

void test('a counter that went backwards gives rate 0, a missing one undefined', async () => {
  const h = new CounterHistory({ firstIntervalMs: 20 });
  let v = 500;
  const w = await h.window('reset', async () => new Map([['c', (v -= 100)]]), 60);
  assert.equal(counterRate(w, 'c'), 0);
  assert.equal(counterRate(w, 'missing'), undefined);
});

void test('a lookback with no usable reading samples again; readings outside it are not used', async () => {
  const h = new CounterHistory({ firstIntervalMs: 20, minBaseMs: 5, spacingMs: 0 });
  const read = growing(1);
  await h.window('s', read, 60);
  await new Promise((r) => setTimeout(r, 60));
  const w = await h.window('s', read, 0.03);
  assert.equal(w.sampledNow, true);
});

void test('the history is bounded in series, samples and values', async () => {
  const h = new CounterHistory({
    firstIntervalMs: 1,
    minBaseMs: 0,
    spacingMs: 0,
    maxSeries: 3,
    maxSamples: 4,
    maxValues: 2,
  });
  for (let i = 0; i < 10; i++)
    await h.window(
      `s${i}`,
      async () =>
        new Map([
          ['a', 1],
          ['b', 2],
          ['c', 3],
        ]),
      60,
    );
  assert.equal(h.seriesCount, 3);
  assert.deepEqual([...inRange(h.samples('s9'), 0).values.keys()], ['a', 'b']);
  for (let i = 0; i < 10; i++) await h.window('s9', async () => new Map([['a', i]]), 0.0001);
  assert.ok(h.samples('s9').length <= 4);
});

void test('an aborted first sample rejects with the signal reason', async () => {
  const h = new CounterHistory({ firstIntervalMs: 5000 });
  const ac = new AbortController();
  setTimeout(() => ac.abort(new Error('caller gave up')), 20);
  await assert.rejects(h.window('s', growing(1), 60, ac.signal), /caller gave up/);
});

void test('this machine: /proc/net/dev parses with loopback by name', async () => {
  const list = parseNetDev(await readFile('/proc/net/dev', 'utf8'));
  const lo = list.find((i) => i.name === 'lo');
  assert.ok(lo, JSON.stringify(list.map((i) => i.name)));
  assert.ok(lo.rxBytes >= 0 && lo.txBytes >= 0);
});
