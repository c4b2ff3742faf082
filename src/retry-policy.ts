/**
 * The one retry policy of the agent: exponential backoff with a cap and
 * optional jitter, and the loop that retries an operation with it.
 *
 * Its users, each with its own parameters next to it:
 * - the reconciler (a failed module: 1 s doubling to 60 s, no jitter, so
 *   the log line can name the time of the next attempt; reconciler/backoff.ts);
 * - the NRPE and agent-protocol clients (a connection failure: 100 ms
 *   doubling to 1 s, plus up to half of it at random; protocols/connect-retry.ts);
 * - a settings edit that found the file changed by another writer (2 ms
 *   doubling to 50 ms, plus up to as much again at random, so CLI processes
 *   do not retry in lockstep; settings/store/atomic-rewrite.ts).
 *
 * Base layer: imports nothing of the agent.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface BackoffPolicy {
  /** The wait after the first failure, in milliseconds. */
  readonly firstMs: number;
  /** Each further failure multiplies the wait by this (2: doubling). */
  readonly factor: number;
  /** The wait never exceeds this (before jitter). */
  readonly maxMs: number;
  /** Up to this fraction of the wait is added at random (0: none, 1: up to twice the wait). */
  readonly jitter: number;
}

/**
 * The wait before the next attempt after `failures` consecutive failures
 * (values below 1 count as 1): `min(maxMs, firstMs × factor^(failures-1))`
 * plus `jitter` × that × `random()`, rounded down to whole milliseconds.
 */
export function backoffDelay(policy: BackoffPolicy, failures: number, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.floor(failures) - 1);
  const base = Math.min(policy.maxMs, policy.firstMs * policy.factor ** exponent);
  return Math.floor(base + (policy.jitter > 0 ? base * policy.jitter * random() : 0));
}

export interface RetryOptions {
  /** Extra attempts after the first (0 or less: one attempt only). */
  readonly retries: number;
  readonly policy: BackoffPolicy;
  /** Whether this failure may be tried again; the others are thrown at once. */
  readonly retryable: (err: unknown) => boolean;
  /** On the monotonic clock (performance.now() milliseconds): no wait goes past it, no attempt starts at or after it. */
  readonly deadline?: number;
  /** Once aborted, no further attempt starts (the latest failure is thrown). */
  readonly signal?: AbortSignal | undefined;
  /** For tests: the source of the jitter. */
  readonly random?: () => number;
}

/**
 * Runs `attempt` (given its number, from 1) until it resolves, and resolves
 * with that. A failure is retried after `backoffDelay(policy, n)` when it is
 * `retryable`, retries are left, the deadline has not come and the signal is
 * not aborted; otherwise the failure is thrown as it is.
 */
export async function withRetries<T>(attempt: (n: number) => Promise<T>, options: RetryOptions): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      if (n > options.retries || options.signal?.aborted || !options.retryable(err)) throw err;
      let wait = backoffDelay(options.policy, n, options.random);
      // A wait cut at the deadline ends at the deadline: no attempt follows
      // it. (Asking the clock afterwards is not enough: a timer may wake a
      // fraction of a millisecond before performance.now() reaches the deadline.)
      let cutAtDeadline = false;
      if (options.deadline !== undefined) {
        const left = options.deadline - performance.now();
        if (left <= 0) throw err;
        cutAtDeadline = wait >= left;
        wait = Math.min(wait, left);
      }
      const aborted = await sleep(wait, false, options.signal ? { signal: options.signal } : {}).catch(() => true);
      if (aborted || cutAtDeadline || (options.deadline !== undefined && performance.now() >= options.deadline))
        throw err;
    }
  }
}
