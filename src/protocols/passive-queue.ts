/**
 * The queue between a passive-check channel and its server (NSCAClient,
 * IcingaClient): `push` never waits and never throws, so a slow or absent
 * server never holds up a check. One sender loop per queue takes up to
 * `batch` results at a time (after waiting up to `lingerMs` for a batch to
 * fill); a failed send puts them back at the front and
 * waits `backoffDelay(policy, failures)` (retry-policy.ts) before the next
 * attempt; a success resets the wait. Beyond `capacity` results the oldest
 * are dropped and counted (`onDrop`), in memory only: a restart loses what
 * was queued, as NSClient++ does. A send that rejects with `permanent: true`
 * on its error (the server refused the results for good: an unknown Icinga 2
 * object, a wrong password) is neither retried nor counted as sent: its
 * results count once, as rejected, and its message becomes `lastError`
 * (`onReject`).
 */
import { backoffDelay, type BackoffPolicy } from '../retry-policy.js';

export interface PassiveQueueOptions<T> {
  capacity: number;
  /** Results per send. */
  batch: number;
  /**
   * Milliseconds to wait for more results before sending a batch that is
   * not full (0: send at once). Under load it turns one connection per
   * result into one per batch; a result waits at most this long.
   */
  lingerMs?: number;
  policy: BackoffPolicy;
  /** Sends a batch; rejects when the server did not take it. */
  send: (items: readonly T[], signal: AbortSignal) => Promise<void>;
  /** After results were dropped: how many this time and in all. */
  onDrop?: (now: number, total: number) => void;
  /** After a failed send: the error and the wait before the next attempt. */
  onFailure?: (err: unknown, retryInMs: number) => void;
  /** After a send refused for good (`permanent` on the error): its results are dropped and counted as rejected. */
  onReject?: (err: unknown, count: number) => void;
  /** After a successful send following failures. */
  onRecovered?: (sent: number) => void;
}

export interface PassiveQueueStats {
  queued: number;
  sent: number;
  dropped: number;
  /** Results the server refused for good. */
  rejected: number;
  failures: number;
  lastError: string;
}

export class PassiveQueue<T> {
  private items: T[] = [];
  private running = false;
  private failures = 0;
  private sent = 0;
  private dropped = 0;
  private rejected = 0;
  private lastError = '';
  private readonly abort = new AbortController();
  private wake: (() => void) | undefined;
  private idle: Promise<void> = Promise.resolve();

  constructor(private options: PassiveQueueOptions<T>) {}

  /** Takes new settings (capacity, batch, policy, send); queued results stay. */
  reconfigure(options: PassiveQueueOptions<T>): void {
    this.options = options;
    this.trim();
    // A server that changed may answer now: try at once.
    this.wake?.();
  }

  /** Queues results and starts sending; returns at once. */
  push(items: readonly T[]): void {
    if (this.abort.signal.aborted) return;
    this.items.push(...items);
    this.trim();
    if (!this.running) {
      this.running = true;
      this.idle = this.loop().finally(() => (this.running = false));
    }
  }

  stats(): PassiveQueueStats {
    return {
      queued: this.items.length,
      sent: this.sent,
      dropped: this.dropped,
      rejected: this.rejected,
      failures: this.failures,
      lastError: this.lastError,
    };
  }

  /** Stops sending (an attempt under way is aborted); what is queued is dropped. */
  async close(): Promise<void> {
    this.abort.abort();
    this.wake?.();
    await this.idle;
    this.items = [];
  }

  private trim(): void {
    const over = this.items.length - this.options.capacity;
    if (over <= 0) return;
    this.items.splice(0, over);
    this.dropped += over;
    this.options.onDrop?.(over, this.dropped);
  }

  private async loop(): Promise<void> {
    const signal = this.abort.signal;
    while (this.items.length > 0 && !signal.aborted) {
      const linger = this.options.lingerMs ?? 0;
      if (linger > 0 && this.items.length < this.options.batch) await this.sleep(linger);
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- aborted may have turned true during the sleep; TypeScript keeps the narrowing of the loop condition
      if (signal.aborted) return;
      const batch = this.items.splice(0, Math.max(1, this.options.batch));
      try {
        await this.options.send(batch, signal);
        this.sent += batch.length;
        if (this.failures > 0) this.options.onRecovered?.(batch.length);
        this.failures = 0;
      } catch (err) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the send may have failed because of the abort; TypeScript keeps the narrowing of the loop condition
        if (signal.aborted) return;
        this.lastError = err instanceof Error ? err.message : String(err);
        if ((err as { permanent?: boolean } | undefined)?.permanent === true) {
          // Refused for good: retrying cannot help, and the server did not take them.
          this.rejected += batch.length;
          this.failures = 0;
          this.options.onReject?.(err, batch.length);
          continue;
        }
        this.items.unshift(...batch);
        this.trim();
        this.failures++;
        const wait = backoffDelay(this.options.policy, this.failures);
        this.options.onFailure?.(err, wait);
        await this.sleep(wait);
      }
    }
  }

  /** Waits `ms`, or less when reconfigure() or close() wakes the loop. */
  private async sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
    this.wake = undefined;
  }
}
