/**
 * Logger factory. Every file asks for a child logger with its own namespace
 * (for example `agent:settings:validate`). Entries go to stdout/stderr as one
 * line each and into a bounded in-memory buffer that the web API pages
 * through. Listeners (the core's LogEntry bridge) see every entry.
 */

import { escapeLog } from './log-escape.js';
import { maskSecrets } from './log-escape.js';
import { consoleIsJournal, SYSLOG_PRIORITY } from './log-journal.js';

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

/** Process-wide log sink: the buffer, the console threshold and listeners. */
export class LogSink {
  /** A ring: `ring[head]` is the oldest entry once the ring is full; dropping it is O(1). */
  private ring: LogRecord[] = [];
  private head = 0;
  private cap: number;
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
    const kept = this.entries().slice(-cap);
    this.ring = kept;
    this.head = 0;
    this.cap = cap;
    this.ordered = undefined;
  }

  /** Number of entries kept now. */
  get size(): number {
    return this.ring.length;
  }

  write(level: LogLevel, namespace: string, text: string, where?: Where): LogRecord {
    const message = maskSecrets(text, this.secrets);
    const record: LogRecord = {
      index: this.next++,
      level,
      namespace,
      message,
      date: new Date().toISOString(),
      ...(where?.file !== undefined ? { file: where.file } : {}),
      ...(where?.line !== undefined ? { line: where.line } : {}),
    };
    if (this.ring.length < this.cap) {
      this.ring.push(record);
    } else {
      this.ring[this.head] = record;
      this.head = this.head + 1 === this.cap ? 0 : this.head + 1;
    }
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
    if (!this.ordered)
      this.ordered =
        this.head === 0 ? this.ring.slice() : this.ring.slice(this.head).concat(this.ring.slice(0, this.head));
    return levels && levels.size > 0 ? this.ordered.filter((r) => levels.has(r.level)) : this.ordered;
  }

  /** Drop every entry and reset the error counters; indexes keep counting. Returns how many were dropped. */
  clear(): number {
    const n = this.ring.length;
    this.ring = [];
    this.head = 0;
    this.ordered = undefined;
    this.errors = 0;
    this.lastError = '';
    return n;
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
