/**
 * Where check_logfile stopped reading each file: device, inode, byte
 * offset, line count and the file's first bytes (its fingerprint). Kept in
 * memory (a reload of the module's settings or a module restart keeps it)
 * and, once `attach(file)` names a file in the state folder, there too:
 * loaded at attach, written by `flush()` after each check call (a temp file
 * renamed over it), so an agent restart goes on where the last run
 * stopped. Keyed by bookmark and real path, bounded: the least recently
 * used entry goes once `max` is reached. Calls on the same key run one
 * after the other, so two overlapping checks never read the same lines
 * twice.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

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
  private file: string | undefined;
  private dirty = false;

  constructor(private max = 1000) {}

  /**
   * Keep the positions in `file` from now on: the positions it holds are
   * loaded (those of this process win over the file's). Returns why the
   * file could not be read, if it exists and could not.
   */
  attach(file: string): string | undefined {
    if (this.file === file) return undefined;
    this.file = file;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : (err as Error).message;
    }
    try {
      const saved = JSON.parse(text) as Record<
        string,
        { dev: number; ino: number; offset: number; lines: number; head: string }
      >;
      for (const [key, p] of Object.entries(saved)) {
        if (this.entries.has(key) || typeof p.offset !== 'number') continue;
        this.entries.set(key, {
          dev: p.dev,
          ino: p.ino,
          offset: p.offset,
          lines: p.lines,
          head: Buffer.from(p.head, 'base64'),
        });
      }
      this.trim();
      return undefined;
    } catch (err) {
      return `${file} is not a positions file (${(err as Error).message}); starting from the end of each file`;
    }
  }

  /** Write the positions to the attached file when they changed; returns why not, if it failed. */
  flush(): string | undefined {
    if (!this.file || !this.dirty) return undefined;
    const out: Record<string, { dev: number; ino: number; offset: number; lines: number; head: string }> = {};
    for (const [key, p] of this.entries)
      out[key] = { dev: p.dev, ino: p.ino, offset: p.offset, lines: p.lines, head: p.head.toString('base64') };
    const tmp = `${this.file}.${process.pid}.tmp`;
    try {
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
      writeFileSync(tmp, JSON.stringify(out), { mode: 0o600 });
      renameSync(tmp, this.file);
      this.dirty = false;
      return undefined;
    } catch (err) {
      return `cannot write ${this.file}: ${(err as Error).message}`;
    }
  }

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
    this.dirty = true;
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
