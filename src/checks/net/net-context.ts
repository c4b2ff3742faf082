/**
 * What the network checks share: one concurrency limit per check (at most
 * `max concurrent` probes of check_tcp in flight at once, whatever number of
 * calls asked for them; the rest wait in order and give up when their own
 * deadline passes), the per-probe deadline, and the common options.
 *
 * Every probe runs under a deadline made from the caller's signal and the
 * check's `timeout=` (milliseconds, as in NSClient++'s CheckNet): name
 * resolution, connecting, the TLS handshake, sending and reading each stop
 * when it fires, and the step that was running is named in the result.
 */
import { PatternCostError } from '../../formats/linear-pattern.js';
import { performance } from 'node:perf_hooks';
import { countRefused } from '../../core/work-counters.js';
import { Limiter, QueueFullError } from '../scripts/limiter.js';
import { ArgumentError, numberArgument, type CheckArguments, type OptionDef } from '../arguments.js';
import type { Values } from '../expression/evaluate.js';
import { linkSignals } from '../../abort-link.js';

export interface NetContext {
  /** The limiter of one check (created on first use). */
  limiter(check: string): Limiter;
  /** `[/settings/net] max timeout`: the largest timeout= in milliseconds. */
  readonly maxTimeoutMs: number;
  /** `[/settings/net] max body size`: the largest check_http max-size= in bytes. */
  readonly maxBodySize: number;
}

/** The bounds of `[/settings/net]` a request's arguments may not pass. */
export interface NetBounds {
  maxConcurrent: number;
  maxTimeoutMs: number;
  maxBodySize: number;
}

/** Limiters keyed by check name; `setMax` changes all of them in place. */
export class NetLimits implements NetContext {
  private readonly byCheck = new Map<string, Limiter>();
  private max: number;
  maxTimeoutMs: number;
  maxBodySize: number;
  /** Bounds not given are the schema's defaults (60 s, 1 MiB). */
  constructor(bounds: Pick<NetBounds, 'maxConcurrent'> & Partial<NetBounds>) {
    this.max = bounds.maxConcurrent;
    this.maxTimeoutMs = bounds.maxTimeoutMs ?? 60_000;
    this.maxBodySize = bounds.maxBodySize ?? 1024 * 1024;
  }

  /** New bounds, in place: waiting probes start at once if the limit grew. */
  setBounds(bounds: NetBounds): void {
    this.maxTimeoutMs = bounds.maxTimeoutMs;
    this.maxBodySize = bounds.maxBodySize;
    this.setMax(bounds.maxConcurrent);
  }

  limiter(check: string): Limiter {
    let l = this.byCheck.get(check);
    if (!l) {
      l = new Limiter(this.max, NET_MAX_QUEUED);
      this.byCheck.set(check, l);
    }
    return l;
  }

  setMax(max: number): void {
    this.max = Math.max(1, max);
    for (const l of this.byCheck.values()) l.setMax(this.max);
  }
}

/** Probes one check may have waiting for a slot; one more makes the whole call UNKNOWN (counted). */
export const NET_MAX_QUEUED = 256;

/** The largest timeout= accepted, in milliseconds (10 minutes). */
export const MAX_TIMEOUT_MS = 600_000;

export function timeoutOption(defaultMs: number): OptionDef {
  return {
    description:
      'Milliseconds each probe may take in all (name lookup, connect, TLS, send, receive); the step running when it passes is named.',
    default: String(defaultMs),
  };
}

export const HOST_OPTION: OptionDef = {
  description: 'Host name or IP address to probe; repeatable, or several separated by commas (hosts= is the same).',
  repeat: true,
};

/** The hosts of host= and hosts= (comma lists allowed); an empty list is an error. */
export function hostArguments(args: CheckArguments, what = 'host'): string[] {
  const hosts = [...args.all('host'), ...args.all('hosts')]
    .flatMap((h) => h.split(','))
    .map((h) => h.trim())
    .filter(Boolean);
  if (hosts.length === 0) throw new ArgumentError(`${what}= is required`);
  for (const h of hosts)
    if (h.startsWith('-') || /[\s\0/\\]/.test(h)) throw new ArgumentError(`${what}=${h} is not a host name or address`);
  return hosts;
}

export function timeoutArgument(args: CheckArguments, defaultMs: number, net: NetContext): number {
  const ms = numberArgument(args, 'timeout', Math.min(defaultMs, net.maxTimeoutMs), { min: 1, max: MAX_TIMEOUT_MS });
  if (ms > net.maxTimeoutMs)
    throw new ArgumentError(`timeout=${ms} is more than ${net.maxTimeoutMs} ms ([/settings/net] max timeout)`);
  return ms;
}

/** Thrown when the deadline passes; `step` says what was running. */
export class ProbeTimeout extends Error {
  constructor(
    readonly step: string,
    readonly ms: number,
  ) {
    super(`timed out after ${ms} ms while ${step}`);
  }
}

/**
 * A probe's deadline: `signal` aborts when the caller gives up or `ms`
 * pass. `step` records what is running, for the message.
 */
export class Deadline {
  readonly signal: AbortSignal;
  /** Detaches the signal from the caller's (linkSignals); probeAll calls it when the probe is over. */
  readonly release: () => void;
  step = 'waiting for a free slot';
  private readonly timer: AbortSignal;
  private readonly started = performance.now();

  constructor(
    readonly ms: number,
    outer: AbortSignal,
  ) {
    this.timer = AbortSignal.timeout(ms);
    const link = linkSignals(outer, this.timer);
    this.signal = link.signal;
    this.release = link.release;
  }

  /** Milliseconds since the deadline was set (the probe's time so far). */
  elapsed(): number {
    return since(this.started);
  }

  /** The error to report now that the signal fired. */
  failure(): Error {
    if (this.timer.aborted) return new ProbeTimeout(this.step, this.ms);
    return new Error(`cancelled while ${this.step}`);
  }

  /** Run one step; rejects with failure() when the deadline passes first. */
  async run<T>(step: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    this.step = step;
    if (this.signal.aborted) throw this.failure();
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(this.failure());
      this.signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([work(this.signal), aborted]);
    } finally {
      if (onAbort) this.signal.removeEventListener('abort', onAbort);
    }
  }
}

/** Milliseconds since `t0` (a performance.now() reading), to three decimals. */
export function since(t0: number): number {
  return Number((performance.now() - t0).toFixed(3));
}

/** The short result word and message for a failed probe. */
export function failureResult(err: unknown): { result: string; message: string } {
  if (err instanceof ProbeTimeout) return { result: 'timeout', message: err.message };
  // Anything may be thrown, null and undefined included.
  const e = err as NodeJS.ErrnoException | null | undefined;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = e instanceof Error ? e.message : String(err);
  if (code === 'ECONNREFUSED') return { result: 'refused', message: 'connection refused' };
  if (code === 'ECONNRESET') return { result: 'reset', message: 'connection reset by peer' };
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return { result: 'unreachable', message };
  if (e instanceof ResolveError) return { result: 'unresolved', message };
  if (e instanceof TlsError) return { result: 'tls', message };
  return { result: 'error', message };
}

/** A host name that did not resolve. */
export class ResolveError extends Error {}

/** The TLS handshake failed (certificate not trusted, expired, wrong name, protocol). */
export class TlsError extends Error {}

/** The host lacks what a check needs (no ping binary, ICMP refused): the whole check answers UNKNOWN saying so. */
export class Unavailable extends Error {}

/**
 * Probe every target under its own deadline, at most the check's limit at
 * once. A failed probe becomes an item through `failed` (with the result
 * word and message of failureResult); Unavailable fails the whole check.
 */
export function probeAll<T>(
  net: NetContext,
  check: string,
  targets: readonly T[],
  timeoutMs: number,
  outer: AbortSignal,
  probe: (target: T, d: Deadline) => Promise<Values>,
  failed: (target: T, f: { result: string; message: string }, d: Deadline) => Values,
): Promise<Values[]> {
  const limiter = net.limiter(check);
  return Promise.all(
    targets.map((t) => {
      const d = new Deadline(timeoutMs, outer);
      return limiter
        .run(() => probe(t, d), d.signal)
        .catch((err: unknown) => {
          // A match-regex= or expect= too costly for what came back is the request's fault: UNKNOWN, in words.
          if (err instanceof Unavailable || err instanceof PatternCostError) throw err;
          if (err instanceof QueueFullError) {
            countRefused('CheckNet');
            throw new Unavailable(`${check} is busy: ${err.message} (${NET_MAX_QUEUED} at most); try again later`);
          }
          return failed(t, failureResult(d.signal.aborted ? d.failure() : err), d);
        })
        .finally(d.release);
    }),
  );
}
