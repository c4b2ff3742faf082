import { errorMessage } from '../errors.js';
import { sink } from '../log.js';

/**
 * A work queue keyed by module name, as controller-runtime's workqueue:
 * at most one run per key at a time, runs of different keys go side by
 * side (so one module whose start hangs holds up nobody else), and a
 * request made while a run of that key is already waiting joins that run
 * instead of adding another. That is right because every run is
 * level-based: it reads the current desired and observed state when it
 * starts, not what held when it was asked for.
 */
const log = sink.logger('agent:reconciler');

export class KeyedQueue {
  private readonly slots = new Map<string, { running?: Promise<void>; waiting?: Promise<void> }>();

  /** True while a run of `key` is in progress (started, not yet settled). */
  busy(key: string): boolean {
    return this.slots.get(key)?.running !== undefined;
  }

  /**
   * Run `fn` for `key` after the key's current run, or join the run already
   * waiting. Resolves when that run is over; never rejects (a throwing `fn`
   * counts as done: callers record their own failures; what escapes is logged).
   */
  run(key: string, fn: () => Promise<void>): Promise<void> {
    let slot = this.slots.get(key);
    if (!slot) {
      slot = {};
      this.slots.set(key, slot);
    }
    if (slot.waiting) return slot.waiting;
    const s = slot;
    const before = s.running ?? Promise.resolve();
    const p: Promise<void> = before.then(async () => {
      s.waiting = undefined;
      s.running = p;
      try {
        await fn();
      } catch (err) {
        // fn records its own failure; one that escapes it is a bug, logged rather than lost.
        log.error(`${key}: a queued run failed: ${errorMessage(err)}`);
      } finally {
        if (s.running === p) s.running = undefined;
      }
    });
    s.waiting = p;
    return p;
  }

  /** Resolves once every run asked for so far, of every key, is over. */
  async idle(): Promise<void> {
    for (;;) {
      const pending = [...this.slots.values()]
        .flatMap((s) => [s.running, s.waiting])
        .filter((p): p is Promise<void> => p !== undefined);
      if (pending.length === 0) return;
      await Promise.all(pending);
    }
  }
}
