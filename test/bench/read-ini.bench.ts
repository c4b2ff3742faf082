/**
 * Benchmark: our INI reader (parseIni: sections, keys, comments and line
 * numbers) against a bare `ini.decode` of the same text, in the same
 * process, alternating, the median of ROUNDS each. The text is the shared
 * generated settings file (settings-file.ts: 10,000 client targets through
 * templates and 1,000 web users) with target names that have no dots
 * (`host1-example-com`): `ini` would split a dotted section name into
 * nested objects, work ours does not do, so both sides read the same
 * sections. Prints the ratio parseIni / ini.decode (time; lower is better).
 * Run: npm run build && node dist/test/bench/read-ini.bench.js
 */
import ini from 'ini';
import { parseIni } from '../../src/settings/ini/read-ini.js';
import { generateSettings } from './settings-file.js';
import { median } from './median.js';

const ROUNDS = 15;

const text = generateSettings(10_000, 1_000, false);
const lineCount = text.split('\n').length - 1;

// Warm both up, then alternate so that neither profits from the machine's mood.
for (let i = 0; i < 3; i++) {
  ini.decode(text);
  parseIni(text, 'bench.ini');
}
const decodeTimes: number[] = [];
const parseTimes: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  decodeTimes.push(time(() => ini.decode(text)));
  parseTimes.push(time(() => parseIni(text, 'bench.ini')));
}
const doc = parseIni(text, 'bench.ini');
const decodeMs = median(decodeTimes);
const parseMs = median(parseTimes);
console.log(
  `read-ini: ${lineCount} lines (target names without dots), ${(text.length / 1e6).toFixed(1)} MB, ${doc.sections.length} sections, ${doc.problems.length} problems`,
);
console.log(
  `read-ini: ini.decode median ${decodeMs.toFixed(1)} ms, parseIni median ${parseMs.toFixed(1)} ms (${ROUNDS} rounds)`,
);
console.log(`read-ini: ratio parseIni / ini.decode = ${(parseMs / decodeMs).toFixed(2)}`);

function time(fn: () => unknown): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}
