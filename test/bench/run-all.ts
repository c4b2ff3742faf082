/**
 * Run every benchmark (`*.bench.js` next to this file in dist/test/bench),
 * one at a time, each in its own node process so that none warms up or
 * pollutes another. `node dist/test/bench/run-all.js [filter]` runs only the
 * benchmarks whose file name contains the filter. Output passes through as
 * it comes (`run-all.js startup reload` runs those matching any of the
 * words); a summary at the end lists each benchmark's time, exit code and
 * its PASS/MISS goal lines. Exit code 1 when a benchmark crashed or timed
 * out (a MISS is a figure, not a failure).
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
/** No benchmark may run longer than this. */
const LIMIT_MS = 10 * 60_000;

interface Outcome {
  name: string;
  code: number | null;
  ms: number;
  goals: string[];
}

async function main(): Promise<number> {
  const filters = process.argv.slice(2);
  const files = readdirSync(HERE)
    .filter((f) => f.endsWith('.bench.js') && (filters.length === 0 || filters.some((w) => f.includes(w))))
    .sort();
  if (files.length === 0) {
    console.error(`run-all: no benchmark matches ${filters.map((w) => `"${w}"`).join(' or ')} in ${HERE}`);
    return 1;
  }
  const outcomes: Outcome[] = [];
  for (const file of files) {
    console.log(`\n=== ${file} ===`);
    outcomes.push(await runOne(file));
  }
  console.log('\n=== summary ===');
  for (const o of outcomes) {
    const pass = o.goals.filter((g) => /\bPASS\b/.test(g)).length;
    const miss = o.goals.filter((g) => /\bMISS\b/.test(g)).length;
    const status = o.code === 0 ? 'ok' : `FAILED (exit ${String(o.code)})`;
    console.log(
      `${o.name.padEnd(28)} ${(o.ms / 1000).toFixed(1).padStart(6)} s  ${status.padEnd(18)} goals: ${pass} PASS, ${miss} MISS`,
    );
    for (const g of o.goals.filter((x) => /\bMISS\b/.test(x))) console.log(`    ${g}`);
  }
  return outcomes.every((o) => o.code === 0) ? 0 : 1;
}

function runOne(file: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const started = performance.now();
    const goals: string[] = [];
    let pending = '';
    const child = spawn(process.execPath, [join(HERE, file)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const timer = setTimeout(() => {
      console.error(`run-all: ${file} ran longer than ${LIMIT_MS / 1000} s; killing it`);
      child.kill('SIGKILL');
    }, LIMIT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (/\b(PASS|MISS)\b/.test(line)) goals.push(line.trim());
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (/\b(PASS|MISS)\b/.test(pending)) goals.push(pending.trim());
      resolve({ name: file.replace(/\.bench\.js$/, ''), code, ms: performance.now() - started, goals });
    });
  });
}

process.exitCode = await main();
