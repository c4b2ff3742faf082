/**
 * Benchmark: queries per second of each check of issue 16 (the network
 * checks, check_index, check_dummy, and the host checks: check_service,
 * check_logfile, check_network, …, whichever are registered in this build),
 * each against check_ok measured right before it through the same core:
 * both sides are one `core.query` call (protobuf request and response,
 * engine, handler) awaited one after the other, so the ratio is the cost
 * of the check's own work. The network checks probe loopback peers (TCP,
 * HTTP, DNS over UDP, SNTP) that run in their own process
 * (net-peers-process.ts); check_ping runs the ping binary against
 * 127.0.0.1. Bounded: each loop stops at its count cap or after its time
 * budget, whichever comes first. A check that is not registered yet is
 * listed as such; the status of the last answer is printed next to each
 * rate, so an UNKNOWN (a subsystem this host lacks) is visible.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { sink } from '../../src/log.js';
import { loadSettingsText } from '../../src/settings/model/load.js';
import { startLocalCore } from '../../src/cli/local-core.js';
import { catalogue } from '../../src/modules/catalogue.js';
import { STATUS_NAMES, type QueryResult } from '../../src/core/result.js';

sink.consoleLevel = 'silent';

const peers = spawn(process.execPath, [fileURLToPath(new URL('./net-peers-process.js', import.meta.url))], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
type PeerPorts = { tcp: number; http: number; dns: number; ntp: number };
const ports = await new Promise<PeerPorts>((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('peer process did not start within 10 s')), 10_000);
  createInterface({ input: peers.stdout }).once('line', (line) => {
    clearTimeout(timer);
    resolve(JSON.parse(line) as PeerPorts);
  });
  peers.once('exit', (code) => reject(new Error(`peer process exited with ${code}`)));
});

const dir = mkdtempSync(join(tmpdir(), 'bench-host-net-'));
const logFile = join(dir, 'bench.log');
writeFileSync(logFile, 'start\n');
// Every check module of the catalogue except the script runner.
const modules = catalogue()
  .filter((e) => e.name.startsWith('Check') && e.name !== 'CheckExternalScripts')
  .map((e) => `${e.name} = enabled`);
const base = `[/modules]\n${modules.join('\n')}\n`;
const withLog = `${base}\n[/settings/logfile]\nallowed paths = ${dir}\n`;
const file = join(dir, 'agent.ini');
let loaded = loadSettingsText(withLog, file);
if (!loaded.ok) loaded = loadSettingsText(base, file);
if (!loaded.ok) throw new Error(`bench settings invalid: ${JSON.stringify(loaded.problems)}`);
const local = await startLocalCore(loaded.snapshot);
if (local.failed.length > 0) throw new Error(`modules failed: ${JSON.stringify(local.failed)}`);

/** Run `op` until `max` runs or `ms` elapsed; returns runs per second and the last result. */
async function rate(
  op: () => Promise<QueryResult>,
  max: number,
  ms: number,
): Promise<{ perSecond: number; n: number; last: QueryResult }> {
  let last = await op();
  for (let i = 1; i < Math.min(20, max); i++) last = await op();
  let n = 0;
  const t0 = performance.now();
  while (n < max && performance.now() - t0 < ms) {
    last = await op();
    n++;
  }
  return { perSecond: n / ((performance.now() - t0) / 1000), n, last };
}

const CHECKS: [string, string[]][] = [
  ['check_tcp', ['host=127.0.0.1', `port=${ports.tcp}`]],
  ['check_http', [`url=http://127.0.0.1:${ports.http}/`]],
  ['check_dns', ['host=bench.test.example', 'server=127.0.0.1', `port=${ports.dns}`]],
  ['check_ntp_offset', ['server=127.0.0.1', `port=${ports.ntp}`]],
  ['check_ping', ['host=127.0.0.1']],
  ['check_index', []],
  ['check_dummy', ['0', 'bench']],
  ['check_service', []],
  ['check_logfile', [`file=${logFile}`]],
  ['check_network', []],
  ['check_mount', []],
  ['check_connections', []],
  ['check_drive_io', []],
  ['check_swap_io', []],
  ['check_kernel_stats', []],
  ['check_temperature', []],
  ['check_cpu_utilization', []],
  ['check_os_updates', []],
  ['check_mailq', []],
];

try {
  const ok = (): Promise<QueryResult> => local.core.query('check_ok');
  await rate(ok, 100_000, 1000); // warm-up of the core path
  for (const [name, args] of CHECKS) {
    if (!local.core.getQuery(name)) {
      console.log(`host-net-checks: ${name}: not registered in this build`);
      continue;
    }
    // The baseline right before each check, so that load from other processes on the machine hits both alike.
    const baseline = await rate(ok, 100_000, 700);
    const r = await rate(() => local.core.query(name, args), 20_000, 1500);
    const status = STATUS_NAMES[r.last.result];
    console.log(
      `host-net-checks: ${name}: ${r.perSecond.toFixed(0)}/s vs check_ok ${baseline.perSecond.toFixed(0)}/s = ${((r.perSecond / baseline.perSecond) * 100).toFixed(2)}% (${(1e6 / r.perSecond).toFixed(0)} µs each); last answer ${status}${r.last.result === 3 ? `: ${r.last.message.slice(0, 100)}` : ''}`,
    );
  }
} finally {
  await local.stop();
  peers.stdin.end();
  peers.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
