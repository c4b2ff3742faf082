/**
 * The reconciler's retry of a failed module: tried again after 1 s, 2 s,
 * 4 s ... at most 60 s after its latest failure, without jitter (the log
 * line names the time of the next attempt). The policy is the agent's one
 * (retry-policy.ts) with these parameters.
 */
import { backoffDelay, type BackoffPolicy } from '../retry-policy.js';
import { isoTime } from '../iso-time.js';

export const MAX_BACKOFF_MS = 60_000;

export const MODULE_RETRY: BackoffPolicy = { firstMs: 1000, factor: 2, maxMs: MAX_BACKOFF_MS, jitter: 0 };

/** The wait before the next attempt after `failures` consecutive failures (1 or more). */
export function backoffMs(failures: number): number {
  return backoffDelay(MODULE_RETRY, failures);
}

/** `next retry in 4 s (2026-01-01T00:00:04.000Z)`: what a failure's log line says about the next attempt, `ms` from now. */
export function describeRetry(ms: number, now = Date.now()): string {
  return `next retry in ${Math.round(ms / 1000)} s (${isoTime(now + ms)})`;
}
