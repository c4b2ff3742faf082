/**
 * Background sampler of /proc/stat for check_cpu: one reading per interval
 * (1 s), kept for 5 minutes, and one of them every 30 s kept for an hour,
 * so `check_cpu time=15m` and check_nt's `CPULOAD -l 15,…` (NSClient++
 * keeps an hour) have a base without an hour of per-second readings:
 * 300 + 120 readings, not 3,600. Utilisation over a window compares a
 * fresh reading with the oldest sample inside the window (or the oldest one
 * there is, just after start): within a second of the window's start up to
 * 5 minutes, within 30 s beyond. The timer is unref()ed, so it never keeps
 * the process alive; stop() ends it.
 */
import { readCpuTimes, type CpuTimes } from './proc-readers.js';

export interface CpuLoad {
  core: string;
  /** Busy share of the window in percent (100 - idle - iowait). */
  load: number;
  user: number;
  system: number;
  iowait: number;
  idle: number;
}

interface Sample {
  at: number;
  times: Map<string, CpuTimes>;
}

/** The longest window the sampler answers, in seconds (an hour, as NSClient++'s default buffer). */
export const CPU_HISTORY_SECONDS = 3600;

export class CpuSampler {
  /** Every reading of the last `fineMs`. */
  private samples: Sample[] = [];
  /** One reading per `coarseEveryMs`, older ones first, for the last `keepMs`. */
  private coarse: Sample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private fresh: { at: number; loads: CpuLoad[] } | undefined;

  constructor(
    private readonly options: {
      intervalMs?: number;
      /** How long every reading is kept (default 5 min). */
      fineMs?: number;
      /** How often a reading is also kept for longer windows (default 30 s). */
      coarseEveryMs?: number;
      /** How long those are kept (default CPU_HISTORY_SECONDS). */
      keepMs?: number;
      root?: string;
      minSpanMs?: number;
      freshMs?: number;
    } = {},
  ) {}

  /** Take a first sample now and one per interval after that. Idempotent. */
  async start(): Promise<void> {
    if (this.timer) return;
    this.sample();
    this.timer = setInterval(() => {
      try {
        this.sample();
      } catch {
        // a reading that failed is skipped; the next one comes in a second
      }
    }, this.options.intervalMs ?? 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.samples = [];
    this.coarse = [];
  }

  /** Readings held: every one of the last minutes, and the sparse ones for the longer windows. */
  get sampleCount(): number {
    const first = this.samples.at(0)?.at ?? Infinity;
    return this.samples.length + this.coarse.filter((c) => c.at < first).length;
  }

  /**
   * Load of every core and the total over the last `windowSeconds`. When no
   * sample is at least `minSpanMs` (1 s) old — the sampler was not started,
   * or it started a moment ago, as in a one-shot `config-agent query check_cpu` —
   * it measures a fresh interval of `freshMs` (500 ms) instead, so the answer
   * is the host's load now and not the start-up burst of our own process.
   * One fresh interval serves every window asked for within a second.
   */
  async utilisation(windowSeconds: number): Promise<CpuLoad[]> {
    return (await this.measure(windowSeconds)).loads;
  }

  /**
   * utilisation() with what was measured: `freshMs` is set when the answer is a fresh interval
   * of that many milliseconds instead of the window (check_cpu labels it so: `total 500ms`);
   * `coveredSeconds` is how much of the window the figure covers: the window once the history
   * reaches back over it, less after a start (a 5-minute window a minute after the start: 60).
   */
  async measure(windowSeconds: number): Promise<{ loads: CpuLoad[]; freshMs?: number; coveredSeconds: number }> {
    const started = Date.now();
    const since = started - windowSeconds * 1000;
    const base = this.baseFor(since);
    if (base && started - base.at >= (this.options.minSpanMs ?? 1000)) {
      // The history reaches back over the whole window, or over this much of it (just after the start).
      const oldest = Math.min(this.coarse.at(0)?.at ?? Infinity, this.samples.at(0)?.at ?? Infinity);
      const coveredSeconds = oldest <= since ? windowSeconds : Math.floor((started - oldest) / 1000);
      return { loads: between(base, this.read()), coveredSeconds };
    }
    const freshMs = this.options.freshMs ?? 500;
    if (!this.fresh || started - this.fresh.at > 1000) {
      const first = this.read();
      await new Promise((r) => setTimeout(r, freshMs));
      const last = this.read();
      this.fresh = { at: last.at, loads: between(first, last) };
    }
    return { loads: this.fresh.loads, freshMs, coveredSeconds: freshMs / 1000 };
  }

  private baseFor(since: number): Sample | undefined {
    // The oldest sample not older than the window (the sparse ones are all older than the others);
    // else the oldest there is.
    const first = this.samples.at(0);
    const sparse = this.coarse.find((s) => s.at >= since && (first === undefined || s.at < first.at));
    return sparse ?? this.samples.find((s) => s.at >= since) ?? this.coarse.at(0) ?? first;
  }

  private sample(): void {
    const s = this.read();
    this.samples.push(s);
    const lastSparse = this.coarse.at(-1);
    if (lastSparse === undefined || s.at - lastSparse.at >= (this.options.coarseEveryMs ?? 30_000)) this.coarse.push(s);
    // The defaults keep a little more than the longest window each serves: its base is the oldest reading inside.
    const fine = this.options.fineMs ?? 5 * 60 * 1000 + 5000;
    const keep = this.options.keepMs ?? CPU_HISTORY_SECONDS * 1000 + 30_000;
    dropOlder(this.samples, s.at - fine);
    dropOlder(this.coarse, s.at - keep);
  }

  private read(): Sample {
    const times = readCpuTimes(this.options.root);
    return { at: Date.now(), times: new Map(times.map((t) => [t.core, t])) };
  }
}

/** Drop the samples taken before `since`, keeping at least the last one. */
function dropOlder(samples: Sample[], since: number): void {
  let n = 0;
  while (n < samples.length - 1 && (samples[n]?.at ?? since) < since) n++;
  if (n > 0) samples.splice(0, n);
}

function between(base: Sample, now: Sample): CpuLoad[] {
  const out: CpuLoad[] = [];
  for (const [core, t] of now.times) {
    const b = base.times.get(core);
    if (b) out.push(loadBetween(core, b, t));
  }
  return out;
}

function sum(t: CpuTimes): number {
  return t.user + t.nice + t.system + t.idle + t.iowait + t.irq + t.softirq + t.steal;
}

/** Percentages of the time between two readings. Zero elapsed ticks read as idle. */
export function loadBetween(core: string, a: CpuTimes, b: CpuTimes): CpuLoad {
  const total = sum(b) - sum(a);
  if (total <= 0) return { core, load: 0, user: 0, system: 0, iowait: 0, idle: 100 };
  const pct = (x: number): number => Math.max(0, Math.min(100, (x / total) * 100));
  const idle = pct(b.idle - a.idle);
  const iowait = pct(b.iowait - a.iowait);
  return {
    core,
    load: Math.max(0, 100 - idle - iowait),
    user: pct(b.user + b.nice - a.user - a.nice),
    system: pct(b.system + b.irq + b.softirq - a.system - a.irq - a.softirq),
    iowait,
    idle,
  };
}
