/**
 * Benchmark: latency of a settings edit in a running agent, for both kinds
 * of save, seen from outside the agent. The agent runs as its own process
 * (`node dist/agent.cjs run`, test/helpers/agent-process.ts) with
 * CheckHelpers enabled; edits alternately disable and enable CheckHelpers,
 * interleaved by kind, with 150 ms of quiet after each:
 * - rename: the new file is written beside it and renamed over it (editors
 *   that save by rename, `mv`, our own writes). Complete when it appears:
 *   no debounce, no stable-read wait and no scan for writers; the
 *   watcher's rename witness says nobody wrote it since (watcher.ts).
 *   Goal: median < 15 ms.
 * - in place: the file is truncated and written (open, write, close). It
 *   waits for the debounce, two reads one stable interval apart, and a scan
 *   of /proc for processes holding it open for writing. Goal: median < 80 ms.
 * Each latency runs from just before the rename (or from the close of the
 * in-place write) in this process to this process reading, on the agent's
 * stdout pipe, the reconciler's log line `CheckHelpers: unload` /
 * `CheckHelpers: load`, which the agent prints once the module has stopped
 * or started: the change is applied. The baseline in the same run is SIGHUP
 * to its log line (`SIGHUP: reloading settings`), observed the same way:
 * the agent's wake-up and the pipe, which every figure includes. The
 * agent's CPU time per edit (utime + stime from /proc/<pid>/stat, summed
 * over each edit and its quiet time) swings less with other load than the
 * latency does; the load average is printed with the figures.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { DEBOUNCE_MS } from '../../src/settings/store/watcher.js';
import { STABLE_INTERVAL_MS } from '../../src/settings/store/stable-read.js';
import { processCpuMs } from '../helpers/proc-cpu.js';
import { inRange } from '../../src/in-range.js';

const EDITS = 60; // per kind
const RENAME_GOAL_MS = 15;
const IN_PLACE_GOAL_MS = 80;
/** Quiet time after each applied edit, so that late file events of one edit never overlap the next. */
const QUIET_MS = 150;

const settings = (enabled: boolean, i: number): string =>
  `[/modules]\nCheckHelpers = ${enabled ? 'enabled' : 'disabled'}\n\n[/settings/log]\nlevel = info\n; edit ${i}\n`;

const agent = await startAgent({ ini: settings(true, 0), env: { AGENT_LOG_LEVEL: 'info' } });
const times = { rename: [] as number[], inPlace: [] as number[], sighup: [] as number[] };
const cpu = { rename: 0, inPlace: 0 };
const loadBefore = inRange(loadavg(), 0);
try {
  await agent.waitForLog(/CheckHelpers: load/, 10_000);
  await sleep(300);
  let enabled = true;
  for (let i = 0; i < EDITS * 2; i++) {
    enabled = !enabled;
    const rename = i % 2 === 0;
    const cpu0 = cpuMs(agent);
    (rename ? times.rename : times.inPlace).push(await edit(agent, enabled, i, rename));
    await sleep(QUIET_MS);
    cpu[rename ? 'rename' : 'inPlace'] += cpuMs(agent) - cpu0;
    if (i % 4 === 0) {
      times.sighup.push(await hup(agent));
      await sleep(QUIET_MS);
    }
  }
  const rejected = agent.logs().match(/settings rejected/g)?.length ?? 0;
  console.log(
    `reload-latency: ${EDITS} renames and ${EDITS} in-place saves, interleaved, CheckHelpers disabled/enabled alternately; ${rejected} rejected; load average ${loadBefore.toFixed(1)} before, ${inRange(loadavg(), 0).toFixed(1)} after`,
  );
  console.log(
    `reload-latency: baseline, SIGHUP -> its log line on the agent's stdout: median ${pct(times.sighup, 50).toFixed(1)} ms`,
  );
  line('rename -> applied', times.rename, RENAME_GOAL_MS);
  line('in-place save -> applied', times.inPlace, IN_PLACE_GOAL_MS);
  console.log(
    `reload-latency: agent CPU time per edit (from /proc, 10 ms ticks summed over ${EDITS} edits): rename ${(cpu.rename / EDITS).toFixed(2)} ms, in-place save ${(cpu.inPlace / EDITS).toFixed(2)} ms`,
  );
  console.log(
    `reload-latency: fixed waits of an in-place save: debounce ${DEBOUNCE_MS} ms + stable-read interval ${STABLE_INTERVAL_MS} ms; a rename has none`,
  );
} finally {
  await agent.stop();
}

async function edit(a: AgentProcess, enabled: boolean, i: number, rename: boolean): Promise<number> {
  const from = a.mark();
  const text = settings(enabled, i);
  let t0: number;
  if (rename) {
    const tmp = `${a.settingsFile}.tmp-${i}`;
    writeFileSync(tmp, text);
    t0 = performance.now();
    renameSync(tmp, a.settingsFile);
  } else {
    writeFileSync(a.settingsFile, text);
    t0 = performance.now();
  }
  await a.waitForLog(new RegExp(`agent:reconciler: CheckHelpers: ${enabled ? 'load' : 'unload'} `), 10_000, from);
  return performance.now() - t0;
}

async function hup(a: AgentProcess): Promise<number> {
  const from = a.mark();
  const t0 = performance.now();
  a.proc.kill('SIGHUP');
  await a.waitForLog(/SIGHUP: reloading settings/, 10_000, from);
  const ms = performance.now() - t0;
  await a.waitForLog(/settings unchanged \(SIGHUP\)/, 10_000, from);
  return ms;
}

function line(name: string, xs: number[], goal: number): void {
  const med = pct(xs, 50);
  console.log(
    `reload-latency: ${name}: min ${Math.min(...xs).toFixed(1)} ms, median ${med.toFixed(1)} ms, p90 ${pct(xs, 90).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms (goal median < ${goal} ms: ${med < goal ? 'PASS' : 'MISS'})`,
  );
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return inRange(s, Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1));
}

/** User + system CPU time of the agent process so far, in ms (/proc/<pid>/stat, clock ticks of 10 ms). */
function cpuMs(a: AgentProcess): number {
  return processCpuMs(a.proc.pid!, true);
}
