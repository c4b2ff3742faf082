/**
 * check_cpu (utilisation per core and in total over time windows, from the
 * background sampler) and check_load (the kernel's load averages).
 */
import { cpus } from 'node:os';
import { ArgumentError } from '../arguments.js';
import type { CheckDefinition } from '../engine.js';
import { CPU_HISTORY_SECONDS, type CpuSampler } from './cpu-sampler.js';
import { readLoadavg } from './proc-readers.js';

const WINDOW_RE = /^(\d+)\s*(s|m|h)$/i;

/** check_cpu over the given sampler (whose start/stop the module owns). */
export function cpuCheck(sampler: CpuSampler, maxWindowSeconds = CPU_HISTORY_SECONDS): CheckDefinition {
  return {
    name: 'check_cpu',
    title: 'CPU utilisation',
    description:
      'CPU utilisation in percent over time windows (default 5s, 1m, 5m), per core and in total, from a background sampler of /proc/stat.',
    options: {
      time: {
        description: `A window to report, such as 5s, 1m, 15m or 1h (at most ${maxWindowSeconds}s; to the second up to 5m, to 30 s beyond); may be repeated.`,
        default: '5s, 1m, 5m',
        repeat: true,
      },
    },
    vars: {
      core: { kind: 'string', description: "Core name: 'total' or core0, core1, ..." },
      core_id: { kind: 'number', description: 'Core number; -1 for the total.' },
      time: {
        kind: 'string',
        description:
          "The window, as given: '5s', '1m', '5m'; '500ms' when the sampler had no history for it yet (a one-shot config-agent query) and one fresh 500 ms interval was measured instead.",
      },
      covered: {
        kind: 'number',
        description:
          'Seconds of the window the figure covers: the window itself once the sampler has that much history, less just after the start (a 5m window a minute after it: 60).',
      },
      load: { kind: 'percent', description: 'Busy share of the window in percent.' },
      user: { kind: 'percent', description: 'User (and nice) share in percent.' },
      kernel: { kind: 'percent', description: 'Kernel share (system, irq, softirq) in percent.' },
      iowait: { kind: 'percent', description: 'Share spent waiting for I/O in percent.' },
      idle: { kind: 'percent', description: 'Idle share in percent.' },
    },
    defaults: {
      filter: "core = 'total'",
      warning: 'load > 80',
      critical: 'load > 90',
      topSyntax: '${status}: ${problem_list}',
      okSyntax: '%(status): CPU load is ok.',
      detailSyntax: '${time}: ${load}%',
      emptySyntax: '%(status): No CPU data',
      emptyState: 'unknown',
    },
    async collect(args) {
      const times = args
        .all('time')
        .flatMap((t) => t.split(','))
        .map((t) => t.trim())
        .filter(Boolean);
      const windows = (times.length > 0 ? times : ['5s', '1m', '5m']).map((t) => {
        const m = WINDOW_RE.exec(t);
        const unit = m?.[2]?.toLowerCase();
        const seconds = m ? Number(m[1]) * (unit === 'h' ? 3600 : unit === 'm' ? 60 : 1) : NaN;
        if (!(seconds >= 1 && seconds <= maxWindowSeconds))
          throw new ArgumentError(
            `time=${t} is not a window between 1s and ${maxWindowSeconds}s (such as 5s, 1m, 15m, 1h)`,
          );
        return { label: t, seconds };
      });
      const items = [];
      // A window the sampler has no history for (a one-shot `config-agent query check_cpu`) is answered by
      // one fresh interval, labelled as what it is (`total 500ms`), once for all the windows: the
      // history the sampler gathers while that interval is measured does not make later windows of
      // the same check look measured over their span.
      const labels = new Set<string>();
      for (const w of windows) {
        const m = await sampler.measure(w.seconds);
        const time = m.freshMs !== undefined ? `${m.freshMs}ms` : w.label;
        if (labels.has(time)) continue;
        labels.add(time);
        for (const l of m.loads) {
          items.push({
            core: l.core,
            core_id: l.core === 'total' ? -1 : Number(l.core.slice(4)),
            time,
            covered: m.coveredSeconds,
            load: l.load,
            user: l.user,
            kernel: l.system,
            iowait: l.iowait,
            idle: l.idle,
          });
        }
        if (m.freshMs !== undefined) break;
      }
      return items;
    },
    perf: (item) => [{ object: `${item.core} ${item.time}`, key: 'load', alias: `${item.core} ${item.time}` }],
  };
}

/** check_load: the 1, 5 and 15 minute load averages, also scaled by the number of cores. */
export function loadCheck(root?: string): CheckDefinition {
  return {
    name: 'check_load',
    title: 'Load average',
    description:
      'The load averages over 1, 5 and 15 minutes from /proc/loadavg, raw and scaled by the number of cores.',
    vars: {
      time: { kind: 'string', description: "The window: '1m', '5m' or '15m'." },
      load: { kind: 'number', description: 'The load average.' },
      scaled: { kind: 'percent', description: 'The load average per core in percent (load / cores * 100).' },
      cores: { kind: 'number', description: 'Number of cores.' },
    },
    defaults: {
      warning: 'scaled > 80',
      critical: 'scaled > 100',
      topSyntax: '${status}: load average ${list}',
      detailSyntax: '${time}: ${load}',
      emptySyntax: '%(status): No load data',
      emptyState: 'unknown',
    },
    async collect() {
      const l = readLoadavg(root);
      const cores = Math.max(1, cpus().length);
      return [
        ['1m', l.m1],
        ['5m', l.m5],
        ['15m', l.m15],
      ].map(([time, load]) => ({ time, load, cores, scaled: ((load as number) / cores) * 100 }));
    },
    perf: (item) => [
      { object: String(item.time), key: 'load', alias: `load ${item.time}`, minimum: 0 },
      { object: String(item.time), key: 'scaled', alias: `load ${item.time} %`, minimum: 0 },
    ],
  };
}
