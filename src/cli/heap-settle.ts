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
 * Such a collection drops every hidden class ("map") no live object uses, and with them V8's weak
 * records of the maps process.nextTick's object literal went through; the call sites then turn
 * megamorphic for good and a process answers HTTPS with about 1.5 µs more CPU a request, as a bare
 * node server put through it does (V8's memory reducer makes two such collections in an idle
 * agent 8-10 s after its start anyway). So one tick object is kept alive first
 * (keep-tick-maps.ts): the maps stay and the calls stay fast.
 * docs/benchmarks.md (startup, web-api, "Issue 41: what is left") has the figures.
 */
import { join } from 'node:path';
import type { Logger } from '../log.js';
import { loadAddon } from '../native-addon.js';
import { PACKAGE_ROOT } from '../package-root.js';
import { keepTickObjectMaps } from './keep-tick-maps.js';

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
  const v8 = process.getBuiltinModule('node:v8');
  const gc = memoryReducingGc(v8);
  // Before any memory-reducing collection: what keeps process.nextTick fast through it.
  keepTickObjectMaps();
  v8.setFlagsFromString('--bytecode-old-age=1');
  try {
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  } finally {
    v8.setFlagsFromString(`--bytecode-old-age=${commandLineFlag('bytecode-old-age') ?? BYTECODE_OLD_AGE}`);
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

/**
 * What node's command line (V8 flags cannot be in NODE_OPTIONS) gave the V8 flag `name`, the last
 * time it names it: `--name=value` gives the value, a bare `--name` ''; undefined when not given.
 * V8 reads `-` and `_` in a flag's name alike.
 */
function commandLineFlag(name: string): string | undefined {
  const wanted = name.replaceAll('_', '-');
  let value: string | undefined;
  for (const arg of process.execArgv) {
    const m = /^--([a-z0-9_-]+)(?:=(.*))?$/i.exec(arg);
    if (m?.[1]?.replaceAll('_', '-') === wanted) value = m[2] ?? '';
  }
  return value;
}

/** V8's `gc` function, taken from a context made while `--expose-gc` is on. */
function memoryReducingGc(v8: typeof import('node:v8')): (options: GcOptions) => void {
  const vm = process.getBuiltinModule('node:vm');
  v8.setFlagsFromString('--expose-gc');
  try {
    const gc: unknown = vm.runInNewContext('gc');
    if (typeof gc !== 'function') throw new Error('V8 made a context without gc');
    return gc as (options: GcOptions) => void;
  } finally {
    // Off again, unless node's command line had it on.
    if (commandLineFlag('expose-gc') === undefined) v8.setFlagsFromString('--no-expose-gc');
  }
}
