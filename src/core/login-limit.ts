/**
 * The one failed-login limit of the agent: per source address, shared by
 * every password the agent checks (web Basic and the `password` header,
 * check_nt, anything later), counted in flight. The core holds one
 * (`Core.logins`), so failures on one channel count on all of them: 10
 * wrong check_nt passwords block that address on the web too. Its figures
 * are `[/settings/WEB/server] auth rate limit max failures` and `auth rate
 * limit block seconds` (limitsOf), read from the settings in force whether
 * or not WEBServer runs. An address is counted in canonical form
 * (addressKey: an IPv4-mapped IPv6 address is its IPv4 address), so one
 * peer is one entry whichever listener it reached.
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

import { AgentError } from '../errors.js';
import { escapeForLog, type Logger } from '../log.js';
import { WarningThrottle } from '../log-throttle.js';
import type { Snapshot } from '../settings/model/snapshot.js';

const MAX_TRACKED = 10_000;
/** The section whose `auth rate limit …` keys set the limit (the schema's defaults: 10 failures, 60 s). */
const LIMIT_SECTION = '/settings/WEB/server';

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
  private readonly notices = new WarningThrottle();

  constructor(
    /** The figures, or where to read them at each use (the settings in force). */
    private limits: RateLimitConfig | (() => RateLimitConfig),
    private readonly now: () => number = Date.now,
  ) {}

  /** Take new settings; counts already made stay. */
  configure(config: RateLimitConfig): void {
    this.limits = config;
  }

  private get config(): RateLimitConfig {
    return typeof this.limits === 'function' ? this.limits() : this.limits;
  }

  /**
   * Say that `address` is refused: `started` when this failure started its
   * block, else that a guess from it was answered unchecked. One line per
   * address and minute, with the count of the others (log-throttle.ts).
   */
  noteBlocked(log: Logger, address: string, started: boolean, channel: string): void {
    // Refused while its guesses in flight fill the slots, before any block: the block's own line comes first.
    if (!started && !this.isBlocked(address)) return;
    const key = addressKey(address);
    const c = this.config;
    this.notices.warn(
      log,
      'blocked',
      key,
      started
        ? new AgentError('AGENT_WARN_WEB_AUTH_BLOCKED', [escapeForLog(key), c.blockSeconds, c.maxFailures, channel])
            .message
        : `refused a password from ${escapeForLog(key)} on ${channel} unchecked: the address is blocked after ${c.maxFailures} failed authentications`,
    );
  }

  /** True while `address` is refused after reaching the limit. */
  isBlocked(address: string): boolean {
    if (this.config.maxFailures <= 0) return false;
    const e = this.fresh(addressKey(address));
    return e !== undefined && e.blockedUntil > 0;
  }

  /**
   * Take a slot for one guess from `address`, before checking it. Undefined
   * when the address is blocked or its failures plus guesses in flight
   * already reach the limit: refuse without checking.
   */
  acquire(peer: string): AuthAttempt | undefined {
    if (this.config.maxFailures <= 0) return OFF;
    const address = addressKey(peer);
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
    const e = this.fresh(addressKey(address));
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
    const config = this.config;
    if (e.failures === 0) e.windowEnd = t + config.blockSeconds * 1000;
    e.failures++;
    // Map order = recency of the last failure.
    this.entries.delete(address);
    this.entries.set(address, e);
    this.trim();
    if (config.maxFailures > 0 && e.failures >= config.maxFailures && e.blockedUntil === 0) {
      e.blockedUntil = t + config.blockSeconds * 1000;
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

/** The figures of the limit in `sections` (the snapshot's, or a module view's): the schema's defaults when absent. */
export function limitsOf(
  sections: Readonly<Record<string, Readonly<Record<string, unknown>> | undefined>>,
): RateLimitConfig {
  const s = sections[LIMIT_SECTION];
  const max = s?.['auth rate limit max failures'];
  const block = s?.['auth rate limit block seconds'];
  return { maxFailures: typeof max === 'number' ? max : 10, blockSeconds: typeof block === 'number' ? block : 60 };
}

/** The figures of the settings `settings()` answers at each call, read once per snapshot; the defaults before any. */
export function limitsReader(settings: () => Snapshot): () => RateLimitConfig {
  let last: { snapshot: Snapshot; limits: RateLimitConfig } | undefined;
  return () => {
    let snapshot: Snapshot;
    try {
      snapshot = settings();
    } catch {
      return limitsOf({});
    }
    if (last?.snapshot !== snapshot) last = { snapshot, limits: limitsOf(snapshot.sections) };
    return last.limits;
  };
}

/** The address a limit counts: an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) as its IPv4 address, letters in lower case. */
export function addressKey(address: string): string {
  const lower = address.toLowerCase();
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/.test(lower) ? lower.slice(7) : lower;
}
