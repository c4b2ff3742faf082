/**
 * A concurrency limit: at most `max` tasks run at once, the others wait in
 * order of arrival. A waiting task whose signal aborts leaves the queue and
 * rejects with the signal's reason; a running task is never interrupted here.
 */
import { abortReason } from '../../errors.js';

export class Limiter {
  private running = 0;
  private readonly waiting: { start: () => void; signal: AbortSignal | undefined; onAbort: () => void }[] = [];

  constructor(private max: number) {}

  /** Change the limit; waiting tasks start at once if the limit grew. */
  setMax(max: number): void {
    this.max = Math.max(1, max);
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
