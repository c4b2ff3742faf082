/**
 * Where check_logfile stopped reading each file: device, inode, byte
 * offset, line count and the file's first bytes (its fingerprint). Kept in
 * memory for the life of the process (a reload of the module's settings or
 * a module restart keeps it; an agent restart starts over), keyed by
 * bookmark and real path, bounded: the least recently used entry goes once
 * `max` is reached. Calls on the same key run one after the other, so two
 * overlapping checks never read the same lines twice.
 */

export interface LogPosition {
  dev: number;
  ino: number;
  /** Byte offset just after the last complete line read. */
  offset: number;
  /** Complete lines before `offset` (for one-based line numbers). */
  lines: number;
  /** Up to FINGERPRINT_BYTES first bytes of the file when last read. */
  head: Buffer;
}

export const FINGERPRINT_BYTES = 256;

export class LogPositions {
  private readonly entries = new Map<string, LogPosition>();
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private max = 1000) {}

  setMax(max: number): void {
    this.max = max;
    this.trim();
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): LogPosition | undefined {
    return this.entries.get(key);
  }

  set(key: string, pos: LogPosition): void {
    this.entries.delete(key);
    this.entries.set(key, pos);
    this.trim();
  }

  /** Run `fn` after every earlier call on the same key has finished. */
  async exclusive<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.locks.get(key) ?? Promise.resolve();
    const run = before.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.locks.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(key) === tail) this.locks.delete(key);
    }
  }

  private trim(): void {
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
  }
}

const shared = new LogPositions();

/** The process-wide positions the CheckLogFile module uses. */
export function sharedLogPositions(): LogPositions {
  return shared;
}
