/**
 * The pending retries of failed modules: at most one timer per module, a
 * new one replacing the old. Timers do not keep the process alive.
 */
export class RetryTimers {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  /** Run `retry` for `name` after `delayMs`, replacing any retry pending for it. */
  schedule(name: string, delayMs: number, retry: () => void): void {
    this.cancel(name);
    const timer = setTimeout(() => {
      this.timers.delete(name);
      retry();
    }, delayMs);
    timer.unref();
    this.timers.set(name, timer);
  }

  /** True while a retry of `name` is scheduled and has not fired yet. */
  pending(name: string): boolean {
    return this.timers.has(name);
  }

  cancel(name: string): void {
    const pending = this.timers.get(name);
    if (pending) clearTimeout(pending);
    this.timers.delete(name);
  }

  cancelAll(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}
