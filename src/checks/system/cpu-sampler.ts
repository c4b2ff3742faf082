/**
 * Background sampler of /proc/stat for check_cpu: one reading per interval
 * kept in a ring long enough for the longest window (5 minutes by default).
 * Utilisation over a window compares a fresh reading with the oldest sample
 * inside the window (or the oldest one there is, just after start). The
 * timer is unref()ed, so it never keeps the process alive; stop() ends it.
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

export class CpuSampler {
  private samples: Sample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private fresh: { at: number; loads: CpuLoad[] } | undefined;

  constructor(
    private readonly options: {
      intervalMs?: number;
      keepMs?: number;
      root?: string;
      minSpanMs?: number;
      freshMs?: number;
    } = {},
  ) {}

  /** Take a first sample now and one per interval after that. Idempotent. */
  async start(): Promise<void> {
    if (this.timer) return;
    await this.sample();
    this.timer = setInterval(() => void this.sample().catch(() => undefined), this.options.intervalMs ?? 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.samples = [];
  }

  get sampleCount(): number {
    return this.samples.length;
  }

  /**
   * Load of every core and the total over the last `windowSeconds`. When no
   * sample is at least `minSpanMs` (1 s) old — the sampler was not started,
   * or it started a moment ago, as in a one-shot `agent query check_cpu` —
   * it measures a fresh interval of `freshMs` (500 ms) instead, so the answer
   * is the host's load now and not the start-up burst of our own process.
   * One fresh interval serves every window asked for within a second.
   */
  async utilisation(windowSeconds: number): Promise<CpuLoad[]> {
    return (await this.measure(windowSeconds)).loads;
  }

  /**
   * utilisation() with what was measured: `freshMs` is set when the answer is a fresh interval
   * of that many milliseconds instead of the window (check_cpu labels it so: `total 500ms`).
   */
  async measure(windowSeconds: number): Promise<{ loads: CpuLoad[]; freshMs?: number }> {
    const started = Date.now();
    const base = this.baseFor(started - windowSeconds * 1000);
    if (base && started - base.at >= (this.options.minSpanMs ?? 1000))
      return { loads: between(base, await this.read()) };
    const freshMs = this.options.freshMs ?? 500;
    if (!this.fresh || started - this.fresh.at > 1000) {
      const first = await this.read();
      await new Promise((r) => setTimeout(r, freshMs));
      const last = await this.read();
      this.fresh = { at: last.at, loads: between(first, last) };
    }
    return { loads: this.fresh.loads, freshMs };
  }

  private baseFor(since: number): Sample | undefined {
    // The oldest sample not older than the window; else the oldest there is.
    return this.samples.find((s) => s.at >= since) ?? this.samples[0];
  }

  private async sample(): Promise<void> {
    const s = await this.read();
    this.samples.push(s);
    const keep = this.options.keepMs ?? 5 * 60 * 1000 + 5000;
    while (this.samples.length > 1 && (this.samples[0]?.at ?? Infinity) < s.at - keep) this.samples.shift();
  }

  private async read(): Promise<Sample> {
    const times = await readCpuTimes(this.options.root);
    return { at: Date.now(), times: new Map(times.map((t) => [t.core, t])) };
  }
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
