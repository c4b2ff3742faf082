/**
 * check_cpu_utilization: the share of CPU time per mode (user, nice,
 * system, iowait, irq, softirq, steal, guest, idle) between calls, from the
 * aggregate line of /proc/stat. `total` (and NSClient++'s `usage`) is
 * everything but idle: steal and iowait count (SNClient+ leaves steal out).
 * Guest time is already inside user and nice in the kernel's accounting,
 * so it is shown but not added again.
 */
import type { CheckDefinition } from '../engine.js';
import { counterDelta, sharedCounterHistory, type CounterHistory } from '../rates/counter-history.js';
import { realHost, type HostSources } from '../host/host-sources.js';
import { durationArgument } from '../host/options.js';
import { readKernelStat } from './kernel-counters.js';

const MODES = ['user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq', 'steal', 'guest', 'guestNice'] as const;
const SUMMED = ['user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq', 'steal'] as const;

export function cpuUtilizationCheck(
  host: HostSources = realHost(),
  history: CounterHistory = sharedCounterHistory(),
): CheckDefinition {
  const maxLookback = history.maxLookbackSeconds;
  const pct = (description: string) => ({ kind: 'percent' as const, description });
  return {
    name: 'check_cpu_utilization',
    title: 'CPU utilization by mode',
    description:
      'CPU time per mode in percent of all CPUs between calls, from /proc/stat: user, nice, system, iowait, irq, softirq, steal, guest, idle; total is everything but idle.',
    options: {
      range: {
        description: `Window (30s, 1m, 5m; at most ${maxLookback}s) against the oldest reading of an earlier call inside it; without one the call samples 1 s itself. lookback= is the same.`,
        default: '1m',
      },
      lookback: { description: 'Same as range=.' },
    },
    vars: {
      total: pct('Everything but idle (user, nice, system, iowait, irq, softirq, steal).'),
      usage: pct('Same as total (NSClient++ name).'),
      user: pct('User time (guest time excluded).'),
      nice: pct('Niced user time (niced guest time excluded).'),
      system: pct('Kernel time.'),
      iowait: pct('Idle while waiting for I/O.'),
      irq: pct('Hardware interrupts.'),
      softirq: pct('Software interrupts.'),
      steal: pct('Time the hypervisor gave to others.'),
      guest: pct('Running virtual machines (guest and guest_nice).'),
      idle: pct('Idle time.'),
      cores: { kind: 'number', description: 'Logical CPUs.' },
      range: { kind: 'time', description: 'Seconds the shares were measured over.' },
    },
    defaults: {
      warning: 'total > 90',
      critical: 'total > 95',
      topSyntax: '${status}: ${list}',
      detailSyntax:
        'user: ${user}% - system: ${system}% - iowait: ${iowait}% - steal: ${steal}% - guest: ${guest}% - idle: ${idle}%',
      emptySyntax: '%(status): No CPU data',
      emptyState: 'unknown',
    },
    async collect(args, call) {
      const given = args.get('range') !== undefined ? 'range' : 'lookback';
      const range = durationArgument(args, given, 60, 1, maxLookback);
      let cores = 1;
      const w = await history.window(
        `cpu:${host.proc}`,
        async () => {
          const s = await readKernelStat(host.proc);
          cores = s.cores;
          return new Map(MODES.map((m) => [m, s.cpu[m]]));
        },
        range,
        call.signal,
      );
      const d = Object.fromEntries(MODES.map((m) => [m, counterDelta(w, m) ?? 0])) as Record<
        (typeof MODES)[number],
        number
      >;
      const all = SUMMED.reduce((a, m) => a + d[m], 0);
      const share = (n: number): number => (all > 0 ? Math.min(100, (n / all) * 100) : 0);
      const total = all > 0 ? 100 - share(d.idle) : 0;
      return [
        {
          total,
          usage: total,
          user: share(d.user - d.guest),
          nice: share(d.nice - d.guestNice),
          system: share(d.system),
          iowait: share(d.iowait),
          irq: share(d.irq),
          softirq: share(d.softirq),
          steal: share(d.steal),
          guest: share(d.guest + d.guestNice),
          idle: share(d.idle),
          cores,
          range: w.seconds,
        },
      ];
    },
    perf: () =>
      ['total', 'user', 'system', 'iowait', 'steal', 'guest', 'idle'].map((k) => ({
        object: 'cpu',
        key: k,
        alias: k,
        minimum: 0,
        maximum: 100,
      })),
  };
}
