/**
 * Benchmark: the log buffer drops its oldest entry in O(1). Writes per
 * second into a full buffer of 1,000,000 entries (the largest `buffer
 * size`) against a full buffer of 1,000 in the same run, the same writes on
 * both (console silent, so only the buffer differs), alternating rounds,
 * median of each. Goal: the large buffer at 0.5x the small one's rate or
 * better: O(1) per write, the gap being the cache and the garbage
 * collector's card marking for a million-slot array (a splice-based buffer
 * is thousands of times slower there).
 */
import { performance } from 'node:perf_hooks';
import { LogSink } from '../../src/log.js';
import { inRange } from '../../src/in-range.js';

const ROUNDS = 5;
const WRITES = 200_000;
const GOAL = 0.5;

function fill(capacity: number): LogSink {
  const sink = new LogSink(capacity, 'silent');
  for (let i = 0; i < capacity; i++) sink.write('info', 'bench', 'fill');
  return sink;
}

function rate(sink: LogSink): number {
  const t = performance.now();
  for (let i = 0; i < WRITES; i++) sink.write('info', 'bench', 'entry past the capacity');
  return WRITES / ((performance.now() - t) / 1000);
}

const small = fill(1000);
const large = fill(1_000_000);
const smallRates: number[] = [];
const largeRates: number[] = [];
rate(small);
rate(large);
for (let r = 0; r < ROUNDS; r++) {
  smallRates.push(rate(small));
  largeRates.push(rate(large));
}
const med = (xs: number[]): number =>
  inRange(
    [...xs].sort((a, b) => a - b),
    Math.floor(xs.length / 2),
  );
const ratio = med(largeRates) / med(smallRates);
console.log(
  `log-buffer: writes into a full buffer: 1,000,000 entries ${med(largeRates).toFixed(0)}/s, 1,000 entries ${med(smallRates).toFixed(0)}/s (baseline), ${ROUNDS} alternating rounds of ${WRITES.toLocaleString('en')}`,
);
console.log(`log-buffer: ratio large/small ${ratio.toFixed(2)} (goal >= ${GOAL}: ${ratio >= GOAL ? 'PASS' : 'MISS'})`);
