/**
 * Rates between calls from the kernel's cumulative counters (/proc/net/dev,
 * /proc/diskstats, /proc/stat, /proc/vmstat, ...), without a background
 * sampler: each call reads the counters once and compares them with a
 * sample an earlier call kept. The first call (or one whose lookback holds
 * no usable sample) samples over a short interval instead of answering
 * nothing.
 *
 * Shared by every check that reports a rate (one series per check and data
 * root, e.g. `network:/proc`). The history lives in memory for the life of
 * the process: it does not belong to a module instance, so a reload of a
 * module's settings (or a module restart) keeps it. It is bounded: at most
 * `maxSeries` series (least recently used dropped), `maxSamples` samples per
 * series, `maxValues` counters per sample, samples older than `maxAgeMs`
 * dropped.
 */
import { abortReason } from '../../errors.js';

/** One reading of a set of counters: counter name -> cumulative value. */
export interface CounterSample {
  /** Milliseconds since the epoch. */
  readonly at: number;
  readonly values: ReadonlyMap<string, number>;
}

/** Two readings to compute rates between. */
export interface RateWindow {
  readonly base: CounterSample;
  readonly current: CounterSample;
  /** Seconds between base and current (> 0). */
  readonly seconds: number;
  /** True when this call sampled twice itself (no earlier sample was usable). */
  readonly sampledNow: boolean;
}

export interface CounterHistoryOptions {
  /** Series kept at most (least recently used dropped first). Default 32. */
  maxSeries?: number;
  /** Samples kept per series. Default 200. */
  maxSamples?: number;
  /** Counters kept per sample (more are dropped). Default 4096. */
  maxValues?: number;
  /** Samples older than this are dropped. Default 15 minutes. */
  maxAgeMs?: number;
  /** A new sample is kept only this long after the last kept one. Default 5 s. */
  spacingMs?: number;
  /** A baseline must be at least this old to be used. Default 500 ms. */
  minBaseMs?: number;
  /** How long the first call samples. Default 1 s. */
  firstIntervalMs?: number;
}

export type CounterReader = () => Promise<ReadonlyMap<string, number>>;

export class CounterHistory {
  private readonly series = new Map<string, CounterSample[]>();
  private readonly o: Required<CounterHistoryOptions>;

  constructor(options: CounterHistoryOptions = {}) {
    this.o = {
      maxSeries: options.maxSeries ?? 32,
      maxSamples: options.maxSamples ?? 200,
      maxValues: options.maxValues ?? 4096,
      maxAgeMs: options.maxAgeMs ?? 15 * 60 * 1000,
      spacingMs: options.spacingMs ?? 5000,
      minBaseMs: options.minBaseMs ?? 500,
      firstIntervalMs: options.firstIntervalMs ?? 1000,
    };
  }

  /** The longest lookback the history can serve, in seconds. */
  get maxLookbackSeconds(): number {
    return this.o.maxAgeMs / 1000;
  }

  /**
   * Read the counters now and find the baseline: the oldest kept sample of
   * `series` inside the last `lookbackSeconds` that is at least `minBaseMs`
   * old. Without one, read, wait `firstIntervalMs` (abortable by `signal`)
   * and read again. Both readings are kept for later calls. Throws what
   * `read` throws, or the signal's reason.
   */
  async window(
    series: string,
    read: CounterReader,
    lookbackSeconds: number,
    signal?: AbortSignal,
  ): Promise<RateWindow> {
    let current = await this.read(read);
    let base = this.baseline(series, current.at, lookbackSeconds * 1000);
    let sampledNow = false;
    if (!base) {
      base = current;
      await sleep(this.o.firstIntervalMs, signal);
      current = await this.read(read);
      this.keep(series, base, true);
      sampledNow = true;
    }
    this.keep(series, current, sampledNow);
    return { base, current, seconds: Math.max((current.at - base.at) / 1000, 0.001), sampledNow };
  }

  /** Number of series held (for tests and the README's bounds). */
  get seriesCount(): number {
    return this.series.size;
  }

  /** Samples held for one series. */
  samples(series: string): readonly CounterSample[] {
    return this.series.get(series) ?? [];
  }

  clear(): void {
    this.series.clear();
  }

  private async read(read: CounterReader): Promise<CounterSample> {
    const raw = await read();
    const values = new Map<string, number>();
    for (const [k, v] of raw) {
      if (values.size >= this.o.maxValues) break;
      if (Number.isFinite(v)) values.set(k, v);
    }
    return { at: Date.now(), values };
  }

  private baseline(series: string, now: number, lookbackMs: number): CounterSample | undefined {
    const list = this.series.get(series);
    if (!list) return undefined;
    return list.find((s) => s.at >= now - lookbackMs && s.at <= now - this.o.minBaseMs);
  }

  private keep(series: string, sample: CounterSample, force: boolean): void {
    let list = this.series.get(series);
    if (list) this.series.delete(series);
    else list = [];
    // Re-inserted last: Map order is the least-recently-used order.
    this.series.set(series, list);
    const last = list[list.length - 1];
    if (force || !last || sample.at - last.at >= this.o.spacingMs) list.push(sample);
    const cutoff = sample.at - this.o.maxAgeMs;
    while (list.length > this.o.maxSamples || (list[0]?.at ?? Infinity) < cutoff) list.shift();
    while (this.series.size > this.o.maxSeries) this.series.delete(this.series.keys().next().value as string);
  }
}

/**
 * The rate of one counter per second over a window. A counter missing on
 * either side gives undefined; one that went backwards (reset, wrap, a
 * device that came back) gives 0, never a negative rate.
 */
export function counterRate(w: RateWindow, key: string): number | undefined {
  const a = w.base.values.get(key);
  const b = w.current.values.get(key);
  if (a === undefined || b === undefined) return undefined;
  return b < a ? 0 : (b - a) / w.seconds;
}

/** The change of one counter over a window (0 when it went backwards, undefined when missing). */
export function counterDelta(w: RateWindow, key: string): number | undefined {
  const a = w.base.values.get(key);
  const b = w.current.values.get(key);
  if (a === undefined || b === undefined) return undefined;
  return b < a ? 0 : b - a;
}

/**
 * One reading of many objects (interfaces, disks) as counters named
 * `<object>.<counter>`; objectNames() gives the objects back. Object names
 * may contain dots (eth0.100); counter names may not.
 */
export function flattenCounters<T extends { name: string }>(
  list: readonly T[],
  keys: readonly (keyof T & string)[],
): Map<string, number> {
  const m = new Map<string, number>();
  for (const o of list) for (const k of keys) if (typeof o[k] === 'number') m.set(`${o.name}.${k}`, o[k]);
  return m;
}

/** The objects of a flattened reading, in the order they came. */
export function objectNames(sample: CounterSample): string[] {
  return [...new Set([...sample.values.keys()].map((k) => k.slice(0, k.lastIndexOf('.'))))];
}

const shared = new CounterHistory();

/** The process-wide history every rate check uses unless a test passes its own. */
export function sharedCounterHistory(): CounterHistory {
  return shared;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      if (signal) reject(abortReason(signal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
