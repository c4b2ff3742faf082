/**
 * Warnings about events a peer can repeat at will (a wrong password, a
 * dropped result, a refused guess), kept to one line per subject and
 * minute, so that a flood of them neither fills the log buffer nor pushes
 * everything else out of it.
 *
 * Contract of `warn(log, kind, subject, message)`:
 * - the first event of a `kind` and `subject` (for example a peer address)
 *   is logged at once, and opens a window of `windowMs` (a minute);
 * - the events of that window after it are counted, not logged; when the
 *   window ends the last of them is logged with the count of the others,
 *   `… (and 532 more in the last minute)`, and a new window opens; a window
 *   without events closes without a line;
 * - at most `maxSubjects` windows are open at once: the events of further
 *   subjects share one window per kind (subject `*`), so that many
 *   addresses cannot turn the limit into one line each;
 * - the timers do not keep the process alive.
 */
import type { Logger } from './log.js';

interface Window {
  log: Logger;
  /** Events since the last line. */
  count: number;
  last: string;
  timer: NodeJS.Timeout;
}

export class WarningThrottle {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly windowMs = 60_000,
    private readonly maxSubjects = 100,
  ) {}

  /** Log `message` now, or count it in the open window of `kind` and `subject` (see the file's contract). */
  warn(log: Logger, kind: string, subject: string, message: string): void {
    let key = `${kind}\n${subject}`;
    if (!this.windows.has(key) && this.windows.size >= this.maxSubjects) key = `${kind}\n*`;
    const open = this.windows.get(key);
    if (open) {
      open.count++;
      open.last = message;
      open.log = log;
      return;
    }
    log.warning(message);
    this.open(key, log);
  }

  /** Windows open now (for tests). */
  get size(): number {
    return this.windows.size;
  }

  private open(key: string, log: Logger): void {
    const w: Window = { log, count: 0, last: '', timer: setTimeout(() => this.close(key, w), this.windowMs) };
    w.timer.unref();
    this.windows.set(key, w);
  }

  private close(key: string, w: Window): void {
    this.windows.delete(key);
    if (w.count === 0) return;
    const others = w.count - 1;
    w.log.warning(others === 0 ? w.last : `${w.last} (and ${others} more in the last ${this.span()})`);
    this.open(key, w.log);
  }

  private span(): string {
    return this.windowMs === 60_000 ? 'minute' : `${this.windowMs / 1000} s`;
  }
}

/**
 * The one throttle of what network peers make the listeners say (a dropped packet, a refused
 * query, a rejected certificate): a line a minute per kind and peer address, with the count.
 */
export const PEER_EVENTS = new WarningThrottle();

/** The kind of a fault for PEER_EVENTS: its words without figures, so each reason is said and a flood of one counted. */
export function faultKind(prefix: string, text: string): string {
  return `${prefix} ${text.replace(/\d+/g, 'N').slice(0, 60)}`;
}
