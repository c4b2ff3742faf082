/**
 * Benchmark: validate and resolve a generated settings file (10,000 targets
 * and 1,000 users) against a bare `ini.decode` of the same text in the same
 * run, and the time at 1,000, 10,000 and 50,000 targets to show the growth.
 * The targets are named without dots (`host1-example-com`): `ini` would
 * split a dotted section name into nested objects, extra work that ours
 * does not do, which would flatter the ratio.
 * Goals: within 3x of the bare decode, under 1 s for 10,000 targets, linear.
 */
import { decode } from 'ini';
import { performance } from 'node:perf_hooks';
import { loadSettingsText } from '../../src/settings/model/load.js';
import { generateSettings } from './settings-file.js';
import { inRange } from '../../src/in-range.js';
import { median } from './median.js';

function time(fn: () => void, runs: number): number {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    out.push(performance.now() - t);
  }
  return median(out);
}

const FILE = '/tmp/bench-settings/agent.ini';

function measure(targets: number, users: number, runs: number): { ours: number; bare: number; lines: number } {
  const text = generateSettings(targets, users, false);
  // Warm up both paths once (JIT, schema compilation).
  const first = loadSettingsText(text, FILE);
  if (!first.ok) throw new Error(`generated file is invalid: ${first.problems[0]?.message}`);
  decode(text);
  const ours = time(() => void loadSettingsText(text, FILE), runs);
  const bare = time(() => void decode(text), runs);
  return { ours, bare, lines: text.split('\n').length };
}

const main = measure(10_000, 1_000, 7);
const ratio = main.ours / main.bare;
console.log(
  `settings: validate+resolve 10,000 targets + 1,000 users (${main.lines} lines): ${main.ours.toFixed(1)} ms; bare ini.decode ${main.bare.toFixed(1)} ms; ratio ${ratio.toFixed(2)}x (goal <= 3x: ${ratio <= 3 ? 'PASS' : 'MISS'}; goal < 1000 ms: ${main.ours < 1000 ? 'PASS' : 'MISS'})`,
);
const growth: { n: number; ms: number }[] = [];
for (const n of [1_000, 10_000, 50_000]) {
  const r = measure(n, 1_000, n >= 50_000 ? 3 : 5);
  growth.push({ n, ms: r.ours });
  console.log(
    `settings: ${n.toLocaleString('en')} targets: ${r.ours.toFixed(1)} ms (bare decode ${r.bare.toFixed(1)} ms, ratio ${(r.ours / r.bare).toFixed(2)}x)`,
  );
}
const perTarget = growth.map((g) => g.ms / g.n);
const spread = inRange(perTarget, 2) / inRange(perTarget, 1);
console.log(
  `settings: time per target at 10,000 vs 50,000: ${spread.toFixed(2)}x (linear growth ~1.0: ${spread < 1.5 ? 'PASS' : 'MISS'})`,
);
