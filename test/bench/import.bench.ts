/**
 * Benchmark: `config-agent settings import` (the translation and its report, in this process) on
 * nsclient.ini files of 10,000, 40,000 and 160,000 alias lines, each the median of 3 runs; the
 * baseline is the smallest file in the same run: time per line at 160,000 against 10,000 (1.0
 * is linear; the check before this was quadratic). Then the whole command as a user runs it on
 * 1,000,000 lines (the import, its validation of the written file included), once, as a process.
 * Goal: per-line cost at 16x the size within 2x of the small file's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { importNsclient } from '../../src/settings/import/import.js';
import { runAgentCli } from '../helpers/run-cli.js';
import { inRange } from '../../src/in-range.js';

const file = (n: number): string =>
  `[/modules]\nCheckSystem = enabled\n[/settings/external scripts/alias]\n${Array.from({ length: n }, (_, i) => `alias_${i} = check_cpu warn=load>${i % 100}`).join('\n')}\n`;

function timeOf(n: number): number {
  const text = file(n);
  const runs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const r = importNsclient(text, '/etc/nsclient/nsclient.ini', '/etc/config-agent/agent.ini');
    runs.push(performance.now() - t0);
    if (r.totals?.unaccounted !== 0) throw new Error(`${n} lines: ${r.totals?.unaccounted} lines unaccounted`);
  }
  return runs.sort((a, b) => a - b)[1] ?? NaN;
}

timeOf(2000);
const sizes = [10_000, 40_000, 160_000];
const times = sizes.map(timeOf);
sizes.forEach((n, i) =>
  console.log(
    `import: ${n} lines in ${times[i]?.toFixed(0)} ms (${(((times[i] ?? 0) * 1000) / n).toFixed(1)} µs per line)`,
  ),
);
const ratio = (times[2] ?? 0) / inRange(sizes, 2) / ((times[0] ?? 0) / inRange(sizes, 0));
console.log(
  `import: per-line cost at 160,000 lines against 10,000: ${ratio.toFixed(2)}x (goal <= 2x: ${ratio <= 2 ? 'PASS' : 'MISS'})`,
);

const dir = mkdtempSync(join(tmpdir(), 'agent-import-bench-'));
try {
  const big = join(dir, 'nsclient.ini');
  // 1,000,000 lines translate to about 36 MiB, over the 16 MiB the agent reads as one settings
  // file: the command reads and translates all of it, then refuses with the size and the way out.
  writeFileSync(big, file(1_000_000));
  const t0 = performance.now();
  const r = await runAgentCli(['settings', 'import', big, '--output', join(dir, 'agent.ini')], 600_000);
  const refused = /AGENT_ERR_IMPORT_TOO_LARGE/.test(r.stderr);
  console.log(
    `import: config-agent settings import of 1,000,000 lines as a process: ${((performance.now() - t0) / 1000).toFixed(1)} s, exit ${r.code}${refused ? ' (refused: larger than one settings file may be)' : ''}`,
  );
  // The largest file that still fits: 400,000 aliases (about 15 MiB), validated as the agent loads it.
  writeFileSync(big, file(400_000));
  const t1 = performance.now();
  const r2 = await runAgentCli(['settings', 'import', big, '--output', join(dir, 'agent.ini'), '--force'], 600_000);
  console.log(
    `import: config-agent settings import of 400,000 lines as a process (validation of the result included): ${((performance.now() - t1) / 1000).toFixed(1)} s, exit ${r2.code}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
