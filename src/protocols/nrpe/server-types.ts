/**
 * The NRPE server's options, policy and peer, as types in a file of their
 * own: the server (server.ts) and the handling of one connection
 * (serve-query.ts) both name them without importing each other back.
 */
import type * as tls from 'node:tls';
import type { Logger } from '../../log.js';
import type { QueryResult } from '../../core/result.js';
import type { ConnectionGuard } from '../connection-guard.js';

/** What may change while the server runs (applied to the next connection). */
export interface NrpeServerPolicy {
  /** Decides whether a peer address may connect. */
  isAllowed: (remoteAddress: string | undefined) => boolean;
  /** Where the allowed hosts come from, for the refusal log line (`[/settings/default] allowed hosts (agent.ini:29)`). */
  allowedHostsFrom?: string;
  allowArguments: boolean;
  allowNastyCharacters: boolean;
  /** v2 payload length; default 1024. */
  payloadLength: number;
  /** Milliseconds a peer has to send its query (and TLS handshake), counted from the accept. */
  timeoutMs: number;
  /** Connections open at once (default 256). */
  maxConnections?: number;
  /** Connections open at once from one address (default 64). */
  maxPerAddress?: number;
}

export interface NrpeServerOptions extends NrpeServerPolicy {
  /** Address to bind; empty or undefined means every address. */
  host?: string;
  port: number;
  /** TLS server options (see tls.ts); undefined means plain TCP. */
  tls?: tls.TlsOptions | undefined;
  /**
   * Requests that are data, never passed to a shell (such as _NRPE_SUBMIT):
   * their arguments skip the allow-arguments and nasty-character checks.
   */
  dataCommands?: readonly string[];
  /** The connection guard (listener/managed-listener.ts hands its own); one with the policy's limits when absent. */
  guard?: ConnectionGuard;
  /** The answer to a query; a rejection becomes an UNKNOWN answer. `signal` aborts when the peer has gone. */
  answer: (command: string, args: string[], peer: NrpePeer, signal: AbortSignal) => Promise<QueryResult>;
  log: Logger;
}

/** Who sent a query. */
export interface NrpePeer {
  address: string;
  /** Subject CN of a client certificate that was verified against the CA, when one was presented. */
  certificate?: string;
}
