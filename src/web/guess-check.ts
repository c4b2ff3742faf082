/**
 * The check of one credential under the failed-login limit (core/login-limit.ts, shared by every password check of the agent),
 * for AccessControl (access.ts): successes are cached by credential while
 * their login's fingerprint is unchanged, identical guesses in flight from
 * one address share one check, failures are never cached.
 */
import { createHash } from 'node:crypto';
import type { Credential } from './credentials.js';
import type { AuthRateLimiter } from '../core/login-limit.js';
import type { Principal } from './respond.js';

const CACHE_LIMIT = 1000;

export type GuessOutcome =
  /** `cost`: milliseconds the check of this credential took; `checked`: it ran for this guess (no cached success). */
  | { kind: 'ok'; principal: Principal; fingerprint: string; cost: number; checked: boolean }
  | { kind: 'failed'; blockStarted: boolean }
  | { kind: 'blocked' };

export class GuessChecker {
  /** Successful checks by credential, each valid while its login's fingerprint (login-fingerprint.ts) is unchanged. */
  private readonly cache = new Map<string, { principal: Principal; fingerprint: string; cost: number }>();
  /** Checks running now, by address and credential: identical parallel guesses share one. */
  private readonly inFlight = new Map<string, Promise<GuessOutcome>>();

  constructor(private readonly limiter: AuthRateLimiter) {}

  /**
   * Check one credential from `address` under the failed-login limit;
   * `fingerprint` is its login's in the settings now (login-fingerprint.ts).
   * Contract: an identical credential already being checked from the same
   * address shares that check (one guess, one pbkdf2 run); any other guess
   * takes a slot of the limiter first, then a cached success (same
   * credential, its login unchanged in the settings) answers at once, else the check
   * runs; so at most
   * `auth rate limit max failures` guesses per address and window are ever
   * checked, however many arrive at once (`blocked`: refused unchecked).
   */
  async check(address: string, credential: Credential, fingerprint: string): Promise<GuessOutcome> {
    const key = createHash('sha256').update(credential.cacheKey).digest('base64');
    const flightKey = `${address}\n${key}`;
    const shared = this.inFlight.get(flightKey);
    if (shared) return shared;
    // The slot comes before the cache: a cached (right) guess among a burst
    // of wrong ones must not get past the limit either.
    const attempt = this.limiter.acquire(address);
    if (!attempt) return { kind: 'blocked' };
    const cached = this.cache.get(key);
    if (cached?.fingerprint === fingerprint) {
      attempt.succeed();
      return { kind: 'ok', principal: cached.principal, fingerprint, cost: cached.cost, checked: false };
    }
    const run = (async (): Promise<GuessOutcome> => {
      let principal: Principal | undefined;
      const started = performance.now();
      try {
        principal = await credential.verify();
      } catch (err) {
        attempt.fail();
        throw err;
      }
      if (!principal) return { kind: 'failed', blockStarted: attempt.fail() };
      attempt.succeed();
      const cost = performance.now() - started;
      // Checked against the settings of `fingerprint`: a later change of this login fails the comparison above.
      if (!this.cache.has(key) && this.cache.size >= CACHE_LIMIT)
        this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(key, { principal, fingerprint, cost });
      return { kind: 'ok', principal, fingerprint, cost, checked: true };
    })();
    this.inFlight.set(flightKey, run);
    try {
      return await run;
    } finally {
      this.inFlight.delete(flightKey);
    }
  }
}
