/**
 * The contract between the managed listener (managed-listener.ts) and the
 * protocol under it: what a module wants (`ListenerWants`) and the
 * `Transport` a protocol opens.
 *
 * Contract for a new server (what you write, what you get):
 * - You describe the wanted listener as `ListenerWants`: address and port
 *   (0 = the system picks one; `address()` says which), the TLS spec
 *   (server-tls.ts; undefined = plain), the connection limits and your
 *   protocol's policy `P` (allowed hosts, allow-lists, timeouts: whatever
 *   the connections read).
 * - You supply `open(args)`, built from the pieces in this folder:
 *   bind with `listenOn(server, args.host, args.port, YOUR_LISTEN_CODE)`
 *   (listen.ts); feed every raw accepted socket to
 *   `args.guard.admit(socket, policy)` (it checks allowed hosts when the
 *   policy has `isAllowed`, then the caps) and call
 *   `args.guard.served(socket)` when its first request is complete; with
 *   `args.tls`, terminate TLS and pass the socket through `tlsPeer()`
 *   (tls-peer.ts: optional client certificates, the peer's CN) and log
 *   handshake failures with `logTlsClientError()`; hand each query
 *   `peerGone(socket)` (peer-gone.ts), so a query whose peer left is
 *   cancelled; stop reading a peer whose answers back up
 *   (served-connection.ts shows how). The returned `Transport` takes a new
 *   policy (`setPolicy`, for connections from now on), new TLS options on
 *   the same port (`setTls`, false when it cannot: then the component opens
 *   a new listener) and closes with `closeGracefully()` (graceful-close.ts:
 *   stop accepting, let answers in flight finish for a short grace, cut the
 *   rest, dispose the guard, resolve when all are gone).
 *   test/unit/protocols/listener/managed-listener.test.ts has a minimal
 *   transport; protocols/nrpe/server.ts a complete one. A module builds its
 *   wants with modules/listener-wants.ts (its section joins
 *   LISTENER_SECTIONS in settings/store/tls-checks.ts, which also gives
 *   `config-agent settings validate` its TLS file checks).
 */
import type { AddressInfo } from 'node:net';
import type { TlsOptions } from 'node:tls';
import type { Logger } from '../../log.js';
import type { TlsFileProblem } from '../../formats/tls-files.js';
import type { ConnectionGuard, ConnectionLimits } from '../connection-guard.js';
import type { ServerTlsSpec } from './server-tls.js';

export interface ListenerWants<P> {
  /** Address to bind; empty = every address. */
  host: string;
  /** 0: the system picks a free port. */
  port: number;
  tls: ServerTlsSpec | undefined;
  limits: ConnectionLimits;
  policy: P;
  /** Turns problems of the TLS files into the error reported (the lines `config-agent settings validate` prints). */
  tlsFail: (problems: TlsFileProblem[]) => Error;
  /** What to change when binding fails with this error (the key, where it is set, the command): added to the error's message. */
  bindAdvice?: (err: NodeJS.ErrnoException) => string | undefined;
}

export interface OpenArgs<P> {
  host: string;
  port: number;
  tls: TlsOptions | undefined;
  policy: P;
  /** The connection guard of this listener (limits already set). */
  guard: ConnectionGuard;
}

export interface Transport<P> {
  address(): AddressInfo;
  setPolicy(policy: P): void;
  /** New TLS options for new connections on the same port; false when this listener cannot take them. */
  setTls(tls: TlsOptions | undefined): boolean;
  close(): Promise<void>;
}

export interface ManagedListenerOptions<P> {
  /** For messages: `the NRPE server`. */
  what: string;
  /** The listener its connections and refusals are counted for (web, nrpe, agent). */
  counter: string;
  log: Logger;
  open(args: OpenArgs<P>): Promise<Transport<P>>;
  /** Describes the target of a move for messages: `to https://*:8443`. */
  describe(wants: ListenerWants<P>): string;
}
