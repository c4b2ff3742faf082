/**
 * Per-address limit on failed authentications, counted in flight.
 *
 * Contract: from one address, at most `maxFailures` guesses are checked per
 * window, whatever the concurrency. A guess takes a slot with `acquire()`
 * *before* its (slow) password check starts; while the failures of the
 * window plus the guesses in flight reach `maxFailures`, `acquire()` answers
 * undefined and the caller refuses the request without checking it. Each
 * acquired slot is settled once: `fail()` counts a failure (and starts the
 * block when the count reaches the limit), `succeed()` frees the slot.
 *
 * - The window opens at an address's first failure and lasts `blockSeconds`;
 *   reaching the limit blocks the address for `blockSeconds` from then;
 *   afterwards the count starts again.
 * - A success does not clear the count: a valid low-privilege login must
 *   not buy more guesses at another user's password.
 * - `maxFailures` 0 turns the limit off (every acquire succeeds).
 * - Memory is bounded: at most MAX_TRACKED addresses are kept, the oldest
 *   (by last failure) go first; an address with guesses in flight is kept.
 */

const MAX_TRACKED = 10_000;

interface Entry {
  failures: number;
  inFlight: number;
  windowEnd: number;
  blockedUntil: number;
}

export interface RateLimitConfig {
  maxFailures: number;
  blockSeconds: number;
}

/** One admitted guess; settle it exactly once (later calls do nothing). */
export interface AuthAttempt {
  /** The credentials were right: frees the slot. */
  succeed(): void;
  /** The credentials were wrong: counts a failure; true when this failure starts a block. */
  fail(): boolean;
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

  /** True while `address` is refused after reaching the limit. */
  isBlocked(address: string): boolean {
    if (this.config.maxFailures <= 0) return false;
    const e = this.fresh(address);
    return e !== undefined && e.blockedUntil > 0;
  }

  /**
   * Take a slot for one guess from `address`, before checking it. Undefined
   * when the address is blocked or its failures plus guesses in flight
   * already reach the limit: refuse without checking.
   */
  acquire(address: string): AuthAttempt | undefined {
    if (this.config.maxFailures <= 0) return OFF;
    let e = this.fresh(address);
    if (e && (e.blockedUntil > 0 || e.failures + e.inFlight >= this.config.maxFailures)) return undefined;
    if (!e) {
      e = { failures: 0, inFlight: 0, windowEnd: 0, blockedUntil: 0 };
      this.entries.set(address, e);
      this.trim();
    }
    e.inFlight++;
    const entry = e;
    let settled = false;
    return {
      succeed: () => {
        if (settled) return;
        settled = true;
        entry.inFlight--;
        if (entry.inFlight === 0 && entry.failures === 0 && this.entries.get(address) === entry)
          this.entries.delete(address);
      },
      fail: () => {
        if (settled) return false;
        settled = true;
        entry.inFlight--;
        return this.countFailure(address, entry);
      },
    };
  }

  /**
   * True when `acquire(address)` would hand out a slot now: the same answer
   * as taking a slot and freeing it at once with `succeed()`, without
   * creating or touching an entry.
   */
  wouldAdmit(address: string): boolean {
    if (this.config.maxFailures <= 0) return true;
    const e = this.fresh(address);
    return e === undefined || (e.blockedUntil === 0 && e.failures + e.inFlight < this.config.maxFailures);
  }

  /** Addresses currently refused (for metrics). */
  blockedCount(): number {
    const t = this.now();
    let n = 0;
    for (const e of this.entries.values()) if (e.blockedUntil > t) n++;
    return n;
  }

  /** The entry of `address` with an expired window or block reset. */
  private fresh(address: string): Entry | undefined {
    const e = this.entries.get(address);
    if (!e) return undefined;
    const t = this.now();
    if (e.blockedUntil > 0 ? t >= e.blockedUntil : e.failures > 0 && t >= e.windowEnd) {
      e.failures = 0;
      e.blockedUntil = 0;
      e.windowEnd = 0;
      if (e.inFlight === 0) {
        this.entries.delete(address);
        return undefined;
      }
    }
    return e;
  }

  private countFailure(address: string, e: Entry): boolean {
    const t = this.now();
    if (e.failures === 0) e.windowEnd = t + this.config.blockSeconds * 1000;
    e.failures++;
    // Map order = recency of the last failure.
    this.entries.delete(address);
    this.entries.set(address, e);
    this.trim();
    if (this.config.maxFailures > 0 && e.failures >= this.config.maxFailures && e.blockedUntil === 0) {
      e.blockedUntil = t + this.config.blockSeconds * 1000;
      return true;
    }
    return false;
  }

  /** Drop the oldest entries without guesses in flight beyond MAX_TRACKED. */
  private trim(): void {
    if (this.entries.size <= MAX_TRACKED) return;
    for (const [address, e] of this.entries) {
      if (this.entries.size <= MAX_TRACKED) break;
      if (e.inFlight === 0) this.entries.delete(address);
    }
  }
}

// ---------------------------------------------------------------- helpers

/** The attempt handed out while the limit is off. */
const OFF: AuthAttempt = { succeed: () => undefined, fail: () => false };
