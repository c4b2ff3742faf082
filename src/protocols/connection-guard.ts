/**
 * Limits every listener (NRPE, agent protocol, HTTP) puts on the TCP
 * connections it accepts, the way nginx (`limit_conn`, `client_header_timeout`)
 * and Go's `http.Server` (`ReadHeaderTimeout`) do:
 * - at most `maxConnections` open at once, and at most `maxPerAddress` from
 *   one peer address; a connection over either limit is closed at once,
 *   before any TLS byte;
 * - a connection that has not completed its TLS handshake and its first
 *   request within `firstRequestMs` of being accepted is closed, whether it
 *   sends nothing or trickles bytes; after its first request the listener's
 *   own idle rules apply.
 * A listener that filters peers by address (`allowed hosts`) has the guard
 * refuse the others first, the same way.
 * What was refused or closed is logged: the first time per address and
 * reason in a 10 s window at once, then one summary line with the count at
 * the end of the window, so a flood cannot flood the log. Addresses are
 * escaped (escapeLog).
 *
 * The guard sees raw sockets (`admit`); the listener tells it when the first
 * request is complete (`served`), with the raw socket or the TLS socket
 * wrapped around it (both have the same peer address and port).
 */
import type { Socket } from 'node:net';
import type { Logger } from '../log.js';
import { escapeLog } from '../log-escape.js';
import { countConnection, countRefusal } from '../core/work-counters.js';

/** Who may connect at all (a listener's `allowed hosts`), checked before the caps. */
export interface HostFilter {
  isAllowed(address: string | undefined): boolean;
  /** Where the allowed hosts come from, for the refusal line (`[/settings/default] allowed hosts (agent.ini:29)`). */
  allowedHostsFrom?: string | undefined;
}

export interface ConnectionLimits {
  /** Connections open at once; more are refused. */
  maxConnections: number;
  /** Connections open at once from one address; more are refused. */
  maxPerAddress: number;
  /** Milliseconds from accept to a complete first request (TLS handshake included). */
  firstRequestMs: number;
}

/** Defaults of the schema keys `max connections` and `max connections per address`. */
export const DEFAULT_MAX_CONNECTIONS = 256;
export const DEFAULT_MAX_PER_ADDRESS = 64;

/** How long refusals of one address and reason are summed up before one summary line. */
const REPORT_WINDOW_MS = 10_000;
/** Distinct addresses and reasons remembered per window; the rest are summed up together. */
const MAX_REPORT_KEYS = 1000;

interface Entry {
  socket: Socket;
  address: string;
  timer: NodeJS.Timeout | undefined;
}

export class ConnectionGuard {
  private readonly byKey = new Map<string, Entry>();
  private readonly perAddress = new Map<string, number>();
  private readonly reports = new Map<string, number>();
  private reportTimer: NodeJS.Timeout | undefined;

  constructor(
    private limits: ConnectionLimits,
    private readonly log: Logger,
    /** The listener (web, nrpe, agent) its connections and refusals are counted for in the metrics. */
    private readonly listener: string,
  ) {}

  /** Connections open now. */
  get open(): number {
    return this.byKey.size;
  }

  /** Connections open now from one address. */
  openFrom(address: string): number {
    return this.perAddress.get(address) ?? 0;
  }

  /** New limits; they apply to connections accepted from now on (and to deadlines not yet started). */
  setLimits(limits: ConnectionLimits): void {
    this.limits = limits;
  }

  /**
   * A new raw connection: false when its address is not in `hosts` or it is
   * over a limit (it is destroyed and the refusal logged); otherwise it is
   * counted until it closes and its first-request deadline starts.
   */
  admit(socket: Socket, hosts?: HostFilter): boolean {
    const address = socket.remoteAddress;
    if (address === undefined) {
      // Already reset by the peer: nothing to count.
      socket.destroy();
      return false;
    }
    if (hosts && !hosts.isAllowed(address)) {
      this.report(
        address,
        `refused connection from %a: not in allowed hosts${hosts.allowedHostsFrom ? ` ${hosts.allowedHostsFrom}` : ''}`,
      );
      countRefusal(this.listener, 'allowed hosts');
      socket.destroy();
      return false;
    }
    const key = keyOf(socket);
    if (this.byKey.size >= this.limits.maxConnections) {
      this.report(
        address,
        `refused connection from %a: ${this.limits.maxConnections} connections open (max connections)`,
      );
      countRefusal(this.listener, 'max connections');
      socket.destroy();
      return false;
    }
    const fromAddress = this.perAddress.get(address) ?? 0;
    if (fromAddress >= this.limits.maxPerAddress) {
      this.report(
        address,
        `refused connection from %a: ${fromAddress} connections from this address open (max connections per address)`,
      );
      countRefusal(this.listener, 'max connections per address');
      socket.destroy();
      return false;
    }
    countConnection(this.listener);
    const ms = this.limits.firstRequestMs;
    const entry: Entry = { socket, address, timer: undefined };
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      this.report(address, `closed connection from %a: no complete request within ${ms} ms`);
      socket.destroy();
    }, ms);
    entry.timer.unref();
    this.byKey.set(key, entry);
    this.perAddress.set(address, fromAddress + 1);
    socket.once('close', () => this.release(key, entry));
    return true;
  }

  /** The first request on this connection is complete: its deadline no longer applies. */
  served(socket: Socket): void {
    const entry = this.byKey.get(keyOf(socket));
    if (entry?.timer !== undefined) {
      clearTimeout(entry.timer);
      entry.timer = undefined;
    }
  }

  /** Clears the timers and writes the pending summaries (the sockets are the listener's to close). */
  dispose(): void {
    for (const e of this.byKey.values()) if (e.timer !== undefined) clearTimeout(e.timer);
    this.flushReports();
  }

  // ---------------------------------------------------------------- helpers

  private release(key: string, entry: Entry): void {
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    if (this.byKey.get(key) === entry) this.byKey.delete(key);
    const n = (this.perAddress.get(entry.address) ?? 1) - 1;
    if (n > 0) this.perAddress.set(entry.address, n);
    else this.perAddress.delete(entry.address);
  }

  /** Logs `what` (with %a for the address) at once the first time in a window, then counts it. */
  private report(address: string, what: string): void {
    const line = what.replace('%a', escapeLog(address));
    const seen = this.reports.get(line);
    if (seen !== undefined) {
      this.reports.set(line, seen + 1);
      return;
    }
    if (this.reports.size >= MAX_REPORT_KEYS) {
      const other = 'refused or closed connections from other addresses';
      this.reports.set(other, (this.reports.get(other) ?? 0) + 1);
      return;
    }
    this.log.warning(line);
    this.reports.set(line, 0);
    if (this.reportTimer === undefined) {
      this.reportTimer = setTimeout(() => this.flushReports(), REPORT_WINDOW_MS);
      this.reportTimer.unref();
    }
  }

  private flushReports(): void {
    if (this.reportTimer !== undefined) clearTimeout(this.reportTimer);
    this.reportTimer = undefined;
    for (const [line, more] of this.reports) {
      if (more > 0)
        this.log.warning(`${line}: ${more} more time${more === 1 ? '' : 's'} in the last ${REPORT_WINDOW_MS / 1000} s`);
    }
    this.reports.clear();
  }
}

function keyOf(socket: Socket): string {
  return `${socket.remoteAddress ?? '?'}|${socket.remotePort ?? 0}`;
}
