/**
 * The one retry policy of the reconciler: a failed module is tried again
 * after 1 s, 2 s, 4 s ... at most 60 s after its latest failure.
 */
export const MAX_BACKOFF_MS = 60_000;

/** The wait before the next attempt after `failures` consecutive failures (1 or more). */
export function backoffMs(failures: number): number {
  return Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, failures - 1));
}

/** `next retry in 4 s (2026-01-01T00:00:04.000Z)`: what a failure's log line says about the next attempt, `ms` from now. */
export function describeRetry(ms: number, now = Date.now()): string {
  return `next retry in ${Math.round(ms / 1000)} s (${new Date(now + ms).toISOString()})`;
}
