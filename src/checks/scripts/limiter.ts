/**
 * A concurrency limit: at most `max` tasks run at once, at most `maxQueued`
 * others wait in order of arrival, and one more is refused at once with a
 * QueueFullError (counted in `refused`). A waiting task whose signal aborts
 * leaves the queue and rejects with the signal's reason; a running task is
 * never interrupted here (its own signal stops it).
 */
import { abortReason } from '../../errors.js';

/** The queue of a limiter is full: the task did not run. */
export class QueueFullError extends Error {
  constructor(readonly maxQueued: number) {
    super(`${maxQueued} already waiting for a free slot`);
  }
}

export class Limiter {
  private running = 0;
  private readonly waiting: { start: () => void; signal: AbortSignal | undefined; onAbort: () => void }[] = [];
  /** Tasks refused because the queue was full, since the limiter was made. */
  refused = 0;

  constructor(
    private max: number,
    private maxQueued = Number.POSITIVE_INFINITY,
  ) {}

  /** Change the limits; waiting tasks start at once if the limit grew. */
  setMax(max: number, maxQueued = this.maxQueued): void {
    this.max = Math.max(1, max);
    this.maxQueued = Math.max(0, maxQueued);
    this.pump();
  }

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.running >= this.max) {
      if (this.waiting.length >= this.maxQueued) {
        this.refused++;
        throw new QueueFullError(this.maxQueued);
      }
      await new Promise<void>((resolve, reject) => {
        const entry = {
          start: () => {
            signal?.removeEventListener('abort', entry.onAbort);
            resolve();
          },
          signal,
          onAbort: () => {
            const i = this.waiting.indexOf(entry);
            if (i >= 0) this.waiting.splice(i, 1);
            reject(signal ? abortReason(signal) : new Error('aborted'));
          },
        };
        signal?.addEventListener('abort', entry.onAbort, { once: true });
        this.waiting.push(entry);
      });
    } else {
      this.running++;
    }
    try {
      return await task();
    } finally {
      this.running--;
      this.pump();
    }
  }

  private pump(): void {
    while (this.running < this.max && this.waiting.length > 0) {
      const next = this.waiting.shift() as (typeof this.waiting)[number];
      this.running++;
      next.start();
    }
  }
}
