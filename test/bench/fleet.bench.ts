/**
 * Benchmark: a fleet kept in git. 10,000 host files that each include one
 * shared base (100 remote targets, 10 users, roles, modules) and add their
 * own port and target, validated the way CI does:
 * `config-agent settings validate --format github hosts/*.ini` as its own process.
 * Baseline in the same run: the same command on one host file (process
 * start, schema load and one base parse included), so the figure is the
 * per-file cost of a fleet run against validating one file. Both sides run
 * the same CLI on the same files; rounds alternate. Also in this process:
 * the same validation through loadSettingsFile with one SettingsReader,
 * proving that the base is parsed once (10,001 parses for 10,001 files).
 * Goal: the fleet run under 10 s on a 2-core machine. Wall and CPU time
 * (user + system, reported by the CLI process itself through cpu-report.ts)
 * are printed side by side with the load average: on a machine shared with
 * other work the wall time mostly measures the other load, the CPU time is
 * what the run costs; medians of 3 alternating rounds.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadSettingsFile } from '../../src/settings/store/load-file.js';
import { SettingsReader } from '../../src/settings/store/includes.js';
import { generateSettings } from './settings-file.js';
import { inRange } from '../../src/in-range.js';

const HOSTS = 10_000;
const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));

function hostFile(i: number): string {
  return [
    '[/includes]',
    'base = ../shared/base.ini',
    '',
    '[/settings/WEB/server]',
    `port = ${8000 + (i % 1000)}s`,
    '',
    '[/settings/remote/client/targets/local]',
    `address = host${i}.example.com:5666`,
    '',
  ].join('\n');
}

const CPU_REPORT = fileURLToPath(new URL('./cpu-report.js', import.meta.url));

/** Run the CLI as its own process; wall time measured here, CPU time (user + system) reported by the process itself. */
function runCli(args: string[], cwd: string): Promise<{ ms: number; cpuMs: number; code: number; stdout: string }> {
  const t = performance.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', CPU_REPORT, MAIN, ...args],
      { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, AGENT_LOG_LEVEL: 'error' } },
      (err, stdout, stderr) => {
        const cpu = /bench-cpu-ms (\d+) (\d+)/.exec(stderr);
        resolve({
          ms: performance.now() - t,
          cpuMs: cpu ? Number(cpu[1]) + Number(cpu[2]) : Number.NaN,
          code: err ? ((err as { code?: number }).code ?? 99) : 0,
          stdout,
        });
      },
    );
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return inRange(s, Math.floor(s.length / 2));
}

const dir = mkdtempSync(join(tmpdir(), 'bench-fleet-'));
try {
  mkdirSync(join(dir, 'shared'));
  mkdirSync(join(dir, 'hosts'));
  writeFileSync(join(dir, 'shared', 'base.ini'), generateSettings(100, 10));
  for (let i = 0; i < HOSTS; i++)
    writeFileSync(join(dir, 'hosts', `host${String(i).padStart(5, '0')}.ini`), hostFile(i));
  const hosts = readdirSync(join(dir, 'hosts'))
    .sort()
    .map((f) => join('hosts', f));

  // In this process: one reader for the run, each file parsed once.
  const reader = new SettingsReader();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let invalid = 0;
  for (const f of hosts) if (!(await loadSettingsFile(join(dir, f), { reader })).ok) invalid++;
  const inProcess = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  // CPU time as well as wall time: on a machine shared with other work the wall time says little.
  console.log(
    `fleet: in-process validation of ${HOSTS.toLocaleString('en')} host files: ${inProcess.toFixed(0)} ms wall, ${cpuMs.toFixed(0)} ms CPU (${((cpuMs / HOSTS) * 1000).toFixed(0)} µs CPU per file), ${invalid} invalid, files parsed: ${reader.parsed} for ${HOSTS + 1} files (each once: ${reader.parsed === HOSTS + 1 ? 'PASS' : 'MISS'})`,
  );

  // As CI runs it: the CLI, alternating the fleet run and the one-file baseline.
  const fleet: number[] = [];
  const fleetCpu: number[] = [];
  const one: number[] = [];
  const oneCpu: number[] = [];
  let annotations = -1;
  for (let round = 0; round < 3; round++) {
    const single = await runCli(['settings', 'validate', '--format', 'github', inRange(hosts, 0)], dir);
    if (single.code !== 0)
      throw new Error(`one-file validation failed (${single.code}): ${single.stdout.slice(0, 500)}`);
    one.push(single.ms);
    oneCpu.push(single.cpuMs);
    const all = await runCli(['settings', 'validate', '--format', 'github', ...hosts], dir);
    if (all.code !== 0) throw new Error(`fleet validation failed (${all.code}): ${all.stdout.slice(0, 500)}`);
    fleet.push(all.ms);
    fleetCpu.push(all.cpuMs);
    annotations = all.stdout.split('\n').filter((l) => l.startsWith('::')).length;
  }
  const f = median(fleet);
  const fc = median(fleetCpu);
  const o = median(one);
  const oc = median(oneCpu);
  const perFile = (f - o) / (HOSTS - 1);
  const perFileCpu = (fc - oc) / (HOSTS - 1);
  const load = inRange(loadavg(), 0);
  console.log(
    `fleet: config-agent settings validate --format github on ${HOSTS.toLocaleString('en')} host files: ${(f / 1000).toFixed(2)} s wall, ${(fc / 1000).toFixed(2)} s CPU (goal < 10 s: ${f < 10_000 ? 'PASS' : 'MISS'} wall, ${fc < 10_000 ? 'PASS' : 'MISS'} CPU; load average ${load.toFixed(1)} on ${availableParallelism()} cores); ${annotations} annotation(s)`,
  );
  console.log(
    `fleet: one host file (process included): ${o.toFixed(0)} ms wall, ${oc.toFixed(0)} ms CPU; each further file of a fleet run: ${(perFile * 1000).toFixed(0)} µs wall, ${(perFileCpu * 1000).toFixed(0)} µs CPU = ${(perFileCpu / oc).toFixed(4)}x the one-file run's CPU (${(oc / perFileCpu).toFixed(0)} files for the cost of one run)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
