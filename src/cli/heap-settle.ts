/**
 * After `agent ready`, `config-agent run` gives back the memory its start used and no longer
 * needs, at once rather than when V8 gets to it (its memory reducer shrinks the heap 8-10 s
 * after a start of the default settings: 64.0 → 61.5 MB):
 *
 * - one full, memory-reducing garbage collection (V8's "last resort" collection, the one it
 *   makes under memory pressure): the young generation the start grew (settings, schemas,
 *   module starts) shrinks back and old-space pages freed by compaction are released.
 *   Node gives no API for it: `--expose-gc` is set for the moment it takes to make one
 *   context that has `gc`, and unset again (node's documented use of v8.setFlagsFromString);
 * - in that collection, the bytecode of every function not running flushed: V8 flushes a
 *   function's bytecode once it has gone unused through `--bytecode-old-age` (6) full
 *   collections, which an idle agent makes rarely, so the start's code (the settings load,
 *   the module starts: about 1 MB, from the code cache) would stay for hours. The age is 1
 *   for the collection and back to what it was after; what runs later (a query, a request)
 *   compiles again from the bundle's source at its first call, once, without the cache;
 * - then malloc_trim (the heap-settle addon, src/cli/heap-settle-c/): the free pages of
 *   malloc's arenas go back to the kernel.
 *
 * The launcher (src/launcher.cjs) has already fixed malloc's mmap threshold with the same addon
 * before it read the bundle. Without the addon, the collection alone. Once per process,
 * SETTLE_DELAY_MS after ready on an unref'd timer (a stop before then cancels it); it blocks
 * the event loop for the collection (10-45 ms of a default start on a 2-core machine, the most
 * after a start that made its certificate).
 * docs/benchmarks.md (startup) has the figures.
 */
import { join } from 'node:path';
import type { Logger } from '../log.js';
import { loadAddon } from '../native-addon.js';
import { PACKAGE_ROOT } from '../package-root.js';

interface HeapSettleAddon {
  fixMmapThreshold: (bytes: number) => number;
  trim: () => number;
}

interface GcOptions {
  type: 'major' | 'minor';
  execution: 'sync' | 'async';
  flavor: 'regular' | 'last-resort';
}

export const HEAP_SETTLE_ADDON = join(PACKAGE_ROOT, 'dist/bin/heap-settle.node');
/** After ready: the start's last callbacks (listeners, the first timers) have run by then. */
export const SETTLE_DELAY_MS = 200;

export interface Settled {
  /** Milliseconds the collection (and the trim) took. */
  ms: number;
  /** True when the addon trimmed malloc's arenas. */
  trimmed: boolean;
  rssBeforeMb: number;
  rssAfterMb: number;
}

/** Collect the start's garbage and trim malloc now; what it took and gave back. */
export function settleHeap(): Settled {
  const rssBefore = process.memoryUsage.rss();
  // process.hrtime, not performance: the global `performance` loads node's perf_hooks (nine modules) at first use.
  const t0 = process.hrtime.bigint();
  const gc = memoryReducingGc();
  const v8 = process.getBuiltinModule('node:v8');
  v8.setFlagsFromString('--bytecode-old-age=1');
  try {
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  } finally {
    v8.setFlagsFromString(`--bytecode-old-age=${bytecodeOldAge()}`);
  }
  const addon = loadAddon<HeapSettleAddon>(HEAP_SETTLE_ADDON, 'trim');
  const trimmed = addon !== null && addon.trim() === 1;
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { ms, trimmed, rssBeforeMb: rssBefore / 2 ** 20, rssAfterMb: process.memoryUsage.rss() / 2 ** 20 };
}

/** settleHeap() once, SETTLE_DELAY_MS from now, logged at debug level; the returned function cancels it. */
export function scheduleHeapSettle(log: Logger): () => void {
  const timer = setTimeout(() => {
    try {
      const s = settleHeap();
      log.debug(
        `heap settled after the start in ${s.ms.toFixed(1)} ms${s.trimmed ? ' (malloc trimmed)' : ''}: RSS ${s.rssBeforeMb.toFixed(1)} → ${s.rssAfterMb.toFixed(1)} MB`,
      );
    } catch (err) {
      // Only memory is at stake: the agent runs on, as it would have without the collection.
      log.debug(`heap not settled after the start: ${String(err)}`);
    }
  }, SETTLE_DELAY_MS);
  timer.unref();
  return () => clearTimeout(timer);
}

// ---------------------------------------------------------------- helpers

/** V8's own default of `--bytecode-old-age` in Node 24. */
const BYTECODE_OLD_AGE = 6;

/** The bytecode age this process runs with: node's command line (V8 flags cannot be in NODE_OPTIONS), else V8's default. */
function bytecodeOldAge(): number {
  const given = process.execArgv
    .map((arg) => /^--bytecode[-_]old[-_]age=(\d+)$/.exec(arg)?.[1])
    .findLast((value) => value !== undefined);
  return given === undefined ? BYTECODE_OLD_AGE : Number(given);
}

/** V8's `gc` function, taken from a context made while `--expose-gc` is on. */
function memoryReducingGc(): (options: GcOptions) => void {
  const v8 = process.getBuiltinModule('node:v8');
  const vm = process.getBuiltinModule('node:vm');
  v8.setFlagsFromString('--expose-gc');
  try {
    const gc: unknown = vm.runInNewContext('gc');
    if (typeof gc !== 'function') throw new Error('V8 made a context without gc');
    return gc as (options: GcOptions) => void;
  } finally {
    // Off again, unless node's command line had it on.
    if (!process.execArgv.some((arg) => /^--expose[-_]gc$/.test(arg))) v8.setFlagsFromString('--no-expose-gc');
  }
}
