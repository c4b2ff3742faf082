/**
 * Benchmark: queries per second of check_memory and check_drivesize through
 * the core (against check_ok through the same core as baseline), and the
 * cost of an external script query (`check_true = /bin/true`: limiter,
 * the round trip to the script spawner, which forks it in its own process
 * group, output parsing, core) against spawning /bin/true directly from
 * Node, one at a time, in the same run. Bounded: each loop stops at its count cap or
 * after its time budget, whichever comes first.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sink } from '../../src/log.js';
import { loadSettingsFile } from '../../src/settings/store/load-file.js';
import { startLocalCore } from '../../src/cli/local-core.js';

sink.consoleLevel = 'silent';

const dir = mkdtempSync(join(tmpdir(), 'bench-checks-'));
mkdirSync(join(dir, 'scripts'));
const ini = join(dir, 'agent.ini');
writeFileSync(
  ini,
  '[/modules]\nCheckSystem = enabled\nCheckDisk = enabled\nCheckHelpers = enabled\nCheckExternalScripts = enabled\n\n[/settings/external scripts/scripts]\ncheck_true = /bin/true\n',
);
const loaded = await loadSettingsFile(ini);
if (!loaded.ok) throw new Error(`bench settings invalid: ${JSON.stringify(loaded.problems)}`);
const local = await startLocalCore(loaded.snapshot);
if (local.failed.length > 0) throw new Error(`modules failed: ${JSON.stringify(local.failed)}`);

/** Run `op` until `max` runs or `ms` elapsed; returns runs per second and µs per run. */
async function rate(name: string, op: () => Promise<unknown>, max: number, ms: number): Promise<number> {
  for (let i = 0; i < Math.min(50, max); i++) await op();
  let n = 0;
  const t0 = performance.now();
  while (n < max && performance.now() - t0 < ms) {
    await op();
    n++;
  }
  const s = (performance.now() - t0) / 1000;
  const perSecond = n / s;
  console.log(
    `checks: ${name}: ${n.toLocaleString('en')} in ${s.toFixed(2)} s = ${perSecond.toFixed(0)}/s (${((1e6 * s) / n).toFixed(0)} µs each)`,
  );
  return perSecond;
}

const expectOk = (name: string) => async (): Promise<void> => {
  const r = await local.core.query(name, ['warn=none', 'crit=none']);
  if (r.result !== 0) throw new Error(`${name}: ${r.message}`);
};

try {
  const base = await rate('check_ok (baseline)', () => local.core.query('check_ok'), 100_000, 2000);
  const mem = await rate('check_memory', expectOk('check_memory'), 50_000, 2000);
  const disk = await rate('check_drivesize', expectOk('check_drivesize'), 50_000, 2000);
  const direct = await rate(
    'spawn /bin/true from Node (baseline)',
    () => new Promise((res, rej) => spawn('/bin/true', [], { stdio: 'ignore' }).once('exit', res).once('error', rej)),
    2000,
    3000,
  );
  const script = await rate(
    'external script check_true',
    async () => {
      const r = await local.core.query('check_true');
      if (r.result !== 0) throw new Error(`check_true: ${r.message}`);
    },
    2000,
    3000,
  );
  console.log(
    `checks: check_memory runs at ${((mem / base) * 100).toFixed(1)}% of check_ok's rate; check_drivesize at ${((disk / base) * 100).toFixed(1)}%`,
  );
  console.log(
    `checks: an external script query takes ${(direct / script).toFixed(2)}x the time of a bare spawn of /bin/true (${(1e6 / script - 1e6 / direct).toFixed(0)} µs overhead each)`,
  );
} finally {
  await local.stop();
  rmSync(dir, { recursive: true, force: true });
}
