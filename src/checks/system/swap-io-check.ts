/**
 * check_swap_io: pages swapped in and out per second between calls
 * (/proc/vmstat pswpin/pswpout, in bytes), and the swap devices of
 * /proc/swaps.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckDefinition } from '../engine.js';
import { counterRate, sharedCounterHistory, type CounterHistory } from '../rates/counter-history.js';
import { realHost, type HostSources } from '../host/host-sources.js';
import { durationArgument, lookbackOption } from '../host/options.js';
import { parseSwaps, readVmstat } from './kernel-counters.js';

export function swapIoCheck(
  host: HostSources = realHost(),
  history: CounterHistory = sharedCounterHistory(),
): CheckDefinition {
  const maxLookback = history.maxLookbackSeconds;
  return {
    name: 'check_swap_io',
    title: 'Swap I/O',
    description:
      'Swap-in and swap-out rates between calls from /proc/vmstat (pswpin, pswpout), with the swap devices of /proc/swaps.',
    options: { lookback: lookbackOption(60, maxLookback) },
    vars: {
      swap_count: { kind: 'number', description: 'Swap devices and files in use.' },
      swap_in: { kind: 'size', description: 'Bytes swapped in per second over the lookback.' },
      swap_out: { kind: 'size', description: 'Bytes swapped out per second over the lookback.' },
      swap_in_pages: { kind: 'number', description: 'Pages swapped in per second over the lookback.' },
      swap_out_pages: { kind: 'number', description: 'Pages swapped out per second over the lookback.' },
      total_in: { kind: 'size', description: 'Bytes swapped in since boot.' },
      total_out: { kind: 'size', description: 'Bytes swapped out since boot.' },
      size: { kind: 'size', description: 'Swap space of all devices.' },
      used: { kind: 'size', description: 'Swap space in use.' },
      lookback: { kind: 'time', description: 'Seconds the rates were measured over.' },
    },
    defaults: {
      topSyntax: '${status}: ${list}',
      detailSyntax: '%(swap_count) swap device(s), in %(swap_in)/s, out %(swap_out)/s',
      emptySyntax: '%(status): No swap data',
      emptyState: 'unknown',
    },
    async collect(args, call) {
      const lookback = durationArgument(args, 'lookback', 60, 1, maxLookback);
      const w = await history.window(
        `swap:${host.proc}`,
        async () => {
          const v = await readVmstat(host.proc);
          if (!v.has('pswpin') || !v.has('pswpout'))
            throw new Error(`no pswpin/pswpout in ${join(host.proc, 'vmstat')}`);
          return new Map([
            ['in', v.get('pswpin') as number],
            ['out', v.get('pswpout') as number],
          ]);
        },
        lookback,
        call.signal,
      );
      const page = await pageSize(host.proc);
      const swaps = parseSwaps(await readFile(join(host.proc, 'swaps'), 'utf8').catch(() => 'header\n'));
      const inPages = counterRate(w, 'in') ?? 0;
      const outPages = counterRate(w, 'out') ?? 0;
      return [
        {
          swap_count: swaps.length,
          swap_in: inPages * page,
          swap_out: outPages * page,
          swap_in_pages: inPages,
          swap_out_pages: outPages,
          total_in: (w.current.values.get('in') ?? 0) * page,
          total_out: (w.current.values.get('out') ?? 0) * page,
          size: swaps.reduce((a, s) => a + s.size, 0),
          used: swaps.reduce((a, s) => a + s.used, 0),
          lookback: w.seconds,
        },
      ];
    },
    perf: () => [
      { object: 'swap', key: 'swap_in', alias: 'swap_in', minimum: 0 },
      { object: 'swap', key: 'swap_out', alias: 'swap_out', minimum: 0 },
    ],
  };
}

let cachedPage: number | undefined;

/** The kernel's page size, from this process's smaps (4096 when it cannot be read). */
async function pageSize(proc: string): Promise<number> {
  if (cachedPage !== undefined) return cachedPage;
  const text = await readFile(join(proc, 'self', 'smaps'), 'utf8').catch(() => '');
  const m = /^KernelPageSize:\s+(\d+) kB/m.exec(text);
  cachedPage = m ? Number(m[1]) * 1024 : 4096;
  return cachedPage;
}
