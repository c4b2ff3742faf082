/**
 * Waiting in tests for something the agent or a peer does: `cond` is polled every 50 ms (it may
 * be async) until it holds; after `ms` the wait rejects, naming what was awaited. Deadlines are
 * measured on the monotonic clock.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export async function waitUntil(
  cond: () => boolean | Promise<boolean>,
  ms = 10_000,
  what = 'condition',
): Promise<void> {
  const end = performance.now() + ms;
  for (;;) {
    if (await cond()) return;
    if (performance.now() >= end) throw new Error(`${what} not met within ${ms} ms`);
    await sleep(50);
  }
}
