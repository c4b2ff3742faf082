/**
 * check_kernel_stats: context switches and process creations per second
 * (between calls, from /proc/stat), and how many processes and threads
 * exist now (every /proc/<pid>/stat). NSClient++'s names and defaults.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckDefinition } from '../engine.js';
import type { Values } from '../expression/evaluate.js';
import { trimNumber } from '../format.js';
import { counterRate, sharedCounterHistory, type CounterHistory } from '../rates/counter-history.js';
import { realHost, type HostSources } from '../host/host-sources.js';
import { durationArgument, listArgument, lookbackOption } from '../host/options.js';
import { readKernelStat } from './kernel-counters.js';

const TYPES = ['ctxt', 'processes', 'threads', 'procs'] as const;
const LABELS: Readonly<Record<(typeof TYPES)[number], string>> = {
  ctxt: 'Context switches',
  processes: 'Process creations',
  threads: 'Threads',
  procs: 'Processes',
};

export function kernelStatsCheck(
  host: HostSources = realHost(),
  history: CounterHistory = sharedCounterHistory(),
): CheckDefinition {
  const maxLookback = history.maxLookbackSeconds;
  return {
    name: 'check_kernel_stats',
    title: 'Kernel statistics',
    description:
      'Context switches and process creations (forks) per second between calls, from /proc/stat, and the processes and threads that exist now.',
    options: {
      type: {
        description: `Which values: ${TYPES.join(', ')}; comma list, may be repeated.`,
        default: 'ctxt, processes, threads',
        repeat: true,
      },
      lookback: lookbackOption(300, maxLookback),
    },
    vars: {
      name: {
        kind: 'string',
        description: 'ctxt (context switches), processes (process creations), threads or procs (processes that exist).',
      },
      label: { kind: 'string', description: 'Context switches, Process creations, Threads or Processes.' },
      rate: {
        kind: 'number',
        description: 'Per second over the lookback (ctxt and processes); empty for threads and procs.',
      },
      current: {
        kind: 'number',
        description: 'ctxt and processes: the count since boot; threads and procs: how many exist now.',
      },
      human: { kind: 'string', description: 'The rate as 12.3/s, or the count.' },
    },
    defaults: {
      warning: "name = 'threads' and current > 8000",
      critical: "name = 'threads' and current > 10000",
      topSyntax: '${status}: ${list}',
      detailSyntax: '${label}: ${human}',
      emptySyntax: '%(status): No kernel statistics found',
      emptyState: 'unknown',
    },
    async collect(args, call) {
      const types = listArgument(args, 'type');
      for (const t of types)
        if (!(TYPES as readonly string[]).includes(t)) throw new Error(`type=${t} is not one of ${TYPES.join(', ')}`);
      const want = (t: string): boolean => (types.length === 0 ? t !== 'procs' : types.includes(t));
      const lookback = durationArgument(args, 'lookback', 300, 1, maxLookback);
      const items: Values[] = [];
      if (want('ctxt') || want('processes')) {
        const w = await history.window(
          `kernel:${host.proc}`,
          async () => {
            const s = await readKernelStat(host.proc);
            return new Map([
              ['ctxt', s.ctxt],
              ['processes', s.processes],
            ]);
          },
          lookback,
          call.signal,
        );
        for (const name of ['ctxt', 'processes'] as const) {
          if (!want(name)) continue;
          const rate = counterRate(w, name) ?? 0;
          items.push({
            name,
            label: LABELS[name],
            rate,
            current: w.current.values.get(name) ?? 0,
            human: `${trimNumber(rate, 1)}/s`,
          });
        }
      }
      if (want('threads') || want('procs')) {
        const { procs, threads } = await countTasks(host.proc);
        if (want('threads'))
          items.push({ name: 'threads', label: LABELS.threads, current: threads, human: String(threads) });
        if (want('procs')) items.push({ name: 'procs', label: LABELS.procs, current: procs, human: String(procs) });
      }
      return items;
    },
    perf: (item) => [
      {
        object: String(item.name),
        key: item.rate !== undefined ? 'rate' : 'current',
        alias: String(item.name),
        minimum: 0,
      },
    ],
  };
}

/** Processes (numeric /proc entries) and the sum of their threads (field 20 of /proc/<pid>/stat). */
export async function countTasks(proc: string): Promise<{ procs: number; threads: number }> {
  const pids = (await readdir(proc)).filter((n) => /^\d+$/.test(n));
  let procs = 0;
  let threads = 0;
  // In batches, so a host with many processes does not open them all at once.
  for (let i = 0; i < pids.length; i += 64) {
    const texts = await Promise.all(
      pids.slice(i, i + 64).map((p) => readFile(join(proc, p, 'stat'), 'utf8').catch(() => undefined)),
    );
    for (const t of texts) {
      if (t === undefined) continue; // the process ended meanwhile
      const fields = t.slice(t.lastIndexOf(')') + 2).split(' ');
      procs++;
      threads += Number(fields[17]) || 1;
    }
  }
  return { procs, threads };
}
