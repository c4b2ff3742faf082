/**
 * Logger factory. Every file asks for a child logger with its own namespace
 * (for example `agent:settings:validate`). Entries go to stdout/stderr as one
 * line each and into a bounded in-memory buffer that the web API pages
 * through. Listeners (the core's LogEntry bridge) see every entry.
 */

import { escapeLog } from './log-escape.js';
import { maskSecrets } from './log-escape.js';
import { consoleIsJournal, SYSLOG_PRIORITY } from './log-journal.js';
import { inRange } from './in-range.js';
import { isoTime } from './iso-time.js';

export type LogLevel = 'debug' | 'info' | 'warning' | 'error' | 'critical';

export const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warning', 'error', 'critical'];
const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warning: 2, error: 3, critical: 4 };

export interface LogRecord {
  /** Monotonic index, starting at 1. */
  readonly index: number;
  readonly level: LogLevel;
  readonly namespace: string;
  readonly message: string;
  /** ISO 8601 time. */
  readonly date: string;
  /** Source location when known (settings problems carry file and line). */
  readonly file?: string;
  readonly line?: number;
}

export interface Logger {
  readonly namespace: string;
  // Properties, not methods: a logger's functions do not use `this` and may be passed around (`(ok ? log.debug : log.warning)(…)`).
  debug: (message: string, where?: Where) => void;
  info: (message: string, where?: Where) => void;
  warning: (message: string, where?: Where) => void;
  error: (message: string, where?: Where) => void;
  critical: (message: string, where?: Where) => void;
  child: (suffix: string) => Logger;
}

export interface Where {
  file?: string;
  line?: number;
}

export type LogListener = (record: LogRecord) => void;

/**
 * Characters of one entry's message kept; the rest is cut and the cut said
 * at its end (a whole settings problem list fits, a flood of long entries does not).
 */
export const LOG_ENTRY_MAX_CHARS = 65_536;

/**
 * What the buffer may hold in all, besides its count of entries: each
 * entry costs the characters of its message, namespace and file plus
 * LOG_ENTRY_OVERHEAD; beyond it the oldest go first. 16 Mi such units are
 * about 32 MiB of memory at most (two bytes a character when a text is not
 * Latin-1), whatever `buffer size` says: some 80,000 ordinary lines, or
 * 100,000 short ones.
 */
export const LOG_BUFFER_BUDGET = 16 * 1024 * 1024;
/** The cost of an entry beside its text (the record object, its date and fields). */
export const LOG_ENTRY_OVERHEAD = 128;

/** Process-wide log sink: the buffer, the console threshold and listeners. */
export class LogSink {
  /** Entries oldest first from `head` on; dropping the oldest is O(1) (the array is compacted now and then). */
  private list: LogRecord[] = [];
  private head = 0;
  private cap: number;
  /** The cost of the entries kept (LOG_BUFFER_BUDGET). */
  private used = 0;
  /** Entries oldest first, built on demand and kept until the next write. */
  private ordered: LogRecord[] | undefined;
  private next = 1;
  private readonly listeners = new Set<LogListener>();
  errors = 0;
  lastError = '';
  /** Values read from ${env:}/${file:} in the settings: masked as ****** in every entry, with URL userinfo (log-escape.ts). */
  secrets: readonly string[] = [];

  constructor(
    /** Maximum number of entries kept in memory; the oldest go first. */
    capacity = 5000,
    /** Lowest level written to the console; `silent` writes nothing. */
    public consoleLevel: LogLevel | 'silent' = 'info',
    /** Maximum cost of the entries kept (see LOG_BUFFER_BUDGET). */
    private readonly budget = LOG_BUFFER_BUDGET,
  ) {
    this.cap = Math.max(1, Math.floor(capacity));
  }

  /** Maximum number of entries kept (`[/settings/log] buffer size`); shrinking drops the oldest. */
  get capacity(): number {
    return this.cap;
  }

  set capacity(value: number) {
    const cap = Math.max(1, Math.floor(value));
    if (cap === this.cap) return;
    this.cap = cap;
    this.trim(0);
  }

  /** Number of entries kept now. */
  get size(): number {
    return this.list.length - this.head;
  }

  write(level: LogLevel, namespace: string, text: string, where?: Where): LogRecord {
    const masked = maskSecrets(text, this.secrets);
    const message =
      masked.length > LOG_ENTRY_MAX_CHARS
        ? `${masked.slice(0, LOG_ENTRY_MAX_CHARS)}… (${masked.length - LOG_ENTRY_MAX_CHARS} more characters cut)`
        : masked;
    const record: LogRecord = {
      index: this.next++,
      level,
      namespace,
      message,
      date: isoTime(Date.now()),
      ...(where?.file !== undefined ? { file: where.file } : {}),
      ...(where?.line !== undefined ? { line: where.line } : {}),
    };
    const cost = costOf(record);
    this.trim(cost);
    this.list.push(record);
    this.used += cost;
    this.ordered = undefined;
    if (RANK[level] >= RANK.error) {
      this.errors++;
      this.lastError = message;
    }
    if (this.consoleLevel !== 'silent' && RANK[level] >= RANK[this.consoleLevel]) {
      const loc = record.file ? ` (${record.file}${record.line ? `:${record.line}` : ''})` : '';
      const text = consoleIsJournal()
        ? `<${SYSLOG_PRIORITY[level]}>${namespace}: ${message}${loc}\n`
        : `${record.date} ${level.padEnd(8)} ${namespace}: ${message}${loc}\n`;
      (RANK[level] >= RANK.warning ? process.stderr : process.stdout).write(text);
    }
    for (const listener of this.listeners) {
      try {
        listener(record);
      } catch {
        // A broken listener must not break logging.
      }
    }
    return record;
  }

  /** Entries, oldest first, optionally filtered by level. */
  entries(levels?: ReadonlySet<LogLevel>): readonly LogRecord[] {
    this.ordered ??= this.list.slice(this.head);
    return levels && levels.size > 0 ? this.ordered.filter((r) => levels.has(r.level)) : this.ordered;
  }

  /** Drop every entry and reset the error counters; indexes keep counting. Returns how many were dropped. */
  clear(): number {
    const n = this.size;
    this.list = [];
    this.head = 0;
    this.used = 0;
    this.ordered = undefined;
    this.errors = 0;
    this.lastError = '';
    return n;
  }

  /** Drops the oldest entries until one more of `cost` fits the count and the budget. */
  private trim(cost: number): void {
    const room = cost > 0 ? 1 : 0;
    while (this.size > 0 && (this.size + room > this.cap || this.used + cost > this.budget)) {
      this.used -= costOf(inRange(this.list, this.head));
      // Let go of the dropped entry now, not at the next compaction.
      this.list[this.head++] = DROPPED;
      this.ordered = undefined;
    }
    // Compact once the dropped part is the larger half: each entry is copied O(1) times on average.
    if (this.head > 1024 && this.head * 2 > this.list.length) {
      this.list = this.list.slice(this.head);
      this.head = 0;
    }
  }

  onRecord(listener: LogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  logger(namespace: string): Logger {
    const make = (ns: string): Logger => ({
      namespace: ns,
      debug: (m, w) => void this.write('debug', ns, m, w),
      info: (m, w) => void this.write('info', ns, m, w),
      warning: (m, w) => void this.write('warning', ns, m, w),
      error: (m, w) => void this.write('error', ns, m, w),
      critical: (m, w) => void this.write('critical', ns, m, w),
      child: (suffix) => make(`${ns}:${suffix}`),
    });
    return make(namespace);
  }
}

/** What a dropped slot holds until the array is compacted. */
const DROPPED: LogRecord = Object.freeze({ index: 0, level: 'debug', namespace: '', message: '', date: '' });

function costOf(r: LogRecord): number {
  return r.message.length + r.namespace.length + (r.file?.length ?? 0) + LOG_ENTRY_OVERHEAD;
}

/** The sink of this process. Tests and CLI commands may lower its console level. */
export const sink = new LogSink(5000, (process.env.AGENT_LOG_LEVEL as LogLevel | 'silent' | undefined) ?? 'info');

export function getLogger(namespace: string): Logger {
  return sink.logger(namespace);
}

export function isLogLevel(value: string): value is LogLevel {
  return (LEVELS as readonly string[]).includes(value);
}

/**
 * A value from outside (network, files) made safe for one log line by
 * escapeLog (log-escape.ts: control bytes, backslash and the Unicode line
 * separators written as escapes), cut at `max` characters (marked with `…`).
 */
export function escapeForLog(value: unknown, max = 1000): string {
  const text = typeof value === 'string' ? value : String(value);
  return text.length > max ? `${escapeLog(text.slice(0, max))}…` : escapeLog(text);
}
