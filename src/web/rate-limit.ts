/**
 * Per-address limit on failed authentications. After `maxFailures`
 * consecutive failures from one address, that address is refused for
 * `blockSeconds`; a success clears its count. `maxFailures` 0 turns the
 * limit off. Memory is bounded: at most MAX_TRACKED addresses are kept, the
 * oldest entries (by last failure) go first.
 */

const MAX_TRACKED = 10_000;

interface Entry {
  failures: number;
  blockedUntil: number;
}

export interface RateLimitConfig {
  maxFailures: number;
  blockSeconds: number;
}

export class AuthRateLimiter {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private config: RateLimitConfig,
    private readonly now: () => number = Date.now,
  ) {}

  /** Take new settings; counts already made stay. */
  configure(config: RateLimitConfig): void {
    this.config = config;
  }

  /** True while `address` is refused. */
  isBlocked(address: string): boolean {
    if (this.config.maxFailures <= 0) return false;
    const e = this.entries.get(address);
    if (!e || e.blockedUntil === 0) return false;
    if (this.now() < e.blockedUntil) return true;
    this.entries.delete(address);
    return false;
  }

  /** Count a failure; returns true when this failure starts a block. */
  fail(address: string): boolean {
    if (this.config.maxFailures <= 0) return false;
    let e = this.entries.get(address);
    if (e) this.entries.delete(address); // re-insert: Map order = recency
    e ??= { failures: 0, blockedUntil: 0 };
    e.failures++;
    let started = false;
    if (e.failures >= this.config.maxFailures && e.blockedUntil === 0) {
      e.blockedUntil = this.now() + this.config.blockSeconds * 1000;
      started = true;
    }
    this.entries.set(address, e);
    while (this.entries.size > MAX_TRACKED) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    return started;
  }

  /** A success from `address` clears its failures. */
  succeed(address: string): void {
    if (this.entries.size > 0) this.entries.delete(address);
  }

  /** Addresses currently refused (for metrics). */
  blockedCount(): number {
    const t = this.now();
    let n = 0;
    for (const e of this.entries.values()) if (e.blockedUntil > t) n++;
    return n;
  }
}
