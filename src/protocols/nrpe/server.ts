/**
 * The NRPE server: a listener factory that knows nothing about the core or
 * the reconciler. Each connection carries one query; the server reads one
 * packet (v2 of exactly 12 + payload length bytes, v3 or v4 up to 64 KiB),
 * checks it, asks `answer(command, args, peer)`, writes one response of the same
 * version and closes, as check_nrpe expects. Bad packets, peers outside
 * `allowed hosts` and slow peers are dropped (closed without answer) and
 * logged; nothing a peer sends can crash the listener or make it buffer more
 * than one packet. Connections are capped in total and per address, and one
 * that has not sent a complete query (TLS handshake included) within the
 * timeout of being accepted is closed, however it trickles (connection-guard.ts).
 */
import * as net from 'node:net';
import * as tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import {
  ConnectionGuard,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_PER_ADDRESS,
  type ConnectionLimits,
} from '../connection-guard.js';
import { closeGracefully } from '../listener/graceful-close.js';
import { listenOn } from '../listener/listen.js';
import { logTlsClientError, tlsPeer, type TlsFailureWords } from '../listener/tls-peer.js';
import { handleConnection } from './serve-query.js';

export type { NrpePeer, NrpeServerOptions, NrpeServerPolicy } from './server-types.js';
import type { NrpePeer, NrpeServerOptions, NrpeServerPolicy } from './server-types.js';

export interface NrpeServer {
  /** The bound address (after listen). */
  address(): AddressInfo;
  /** Replaces the policy for connections accepted from now on. */
  setPolicy(policy: Partial<NrpeServerPolicy>): void;
  /**
   * New TLS options (certificate, CA, verify mode, ciphers) for connections
   * accepted from now on, on the same port; open ones finish. False (nothing
   * changed) when the listener is plain or `tls` is undefined: switching
   * between plain and TLS needs a new listener.
   */
  setTls(tls: tls.TlsOptions | undefined): boolean;
  /** Stops listening, ends open connections and resolves when all are gone. */
  close(): Promise<void>;
}

/** Starts listening; rejects with AGENT_ERR_NRPE_LISTEN when the address cannot be bound. */
export async function startNrpeServer(options: NrpeServerOptions): Promise<NrpeServer> {
  const policy: NrpeServerPolicy = { ...options };
  const sockets = new Set<net.Socket>();
  const log = options.log;
  const guard = options.guard ?? new ConnectionGuard(limitsOf(policy), log, 'nrpe');
  let currentTls = options.tls;

  /** Allowed hosts and the connection limits, on the raw socket before any TLS byte; false when refused. */
  const accept = (raw: net.Socket): boolean => {
    if (!guard.admit(raw, policy)) return false;
    sockets.add(raw);
    raw.once('close', () => sockets.delete(raw));
    return true;
  };
  const serve = (socket: net.Socket): void => {
    // One small answer per connection: Nagle's algorithm would only add delay.
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    const peer: NrpePeer = { address: socket.remoteAddress ?? '' };
    if (socket instanceof tls.TLSSocket) {
      const verified = tlsPeer(socket, currentTls?.requestCert, log);
      if (!verified) return;
      Object.assign(peer, verified);
    }
    handleConnection(socket, peer, policy, options, log, () => guard.served(socket));
  };
  const server: net.Server = options.tls
    ? tls.createServer(options.tls, serve)
    : net.createServer((socket) => {
        if (accept(socket)) serve(socket);
      });
  if (options.tls) {
    // Refuse before the handshake; raw sockets are counted so close() can end them. The guard's
    // first-request deadline covers the handshake, the TLS socket's timeout what follows.
    server.on('connection', (raw: net.Socket) => {
      accept(raw);
    });
    server.on('tlsClientError', logTlsClientError(log, NRPE_TLS_WORDS));
  }
  // A bind failure is the rejection below (the caller reports it once, or tries another way when moving); only errors after it are logged here.
  await listenOn(server, options.host, options.port, 'AGENT_ERR_NRPE_LISTEN');
  server.on('error', (err) => log.error(`listener error: ${err.message}`));

  return {
    address: () => server.address() as AddressInfo,
    setPolicy(next) {
      Object.assign(policy, next);
      // A guard handed in is its owner's to limit.
      if (!options.guard) guard.setLimits(limitsOf(policy));
    },
    setTls(next) {
      if (!next || !(server instanceof tls.Server)) return false;
      server.setSecureContext(next);
      // Read by the server for each new connection; setSecureContext leaves them alone.
      const s = server as tls.Server & { requestCert: boolean; rejectUnauthorized: boolean };
      s.requestCert = next.requestCert === true;
      s.rejectUnauthorized = next.rejectUnauthorized !== false;
      currentTls = next;
      return true;
    },
    // One query per connection: those in flight are answered within the grace, then the rest is cut.
    close() {
      return closeGracefully({
        server,
        open: () => sockets.size,
        drain: () => undefined,
        cut: () => {
          for (const s of sockets) s.destroy();
          guard.dispose();
        },
      });
    },
  };
}

function limitsOf(policy: NrpeServerPolicy): ConnectionLimits {
  return {
    maxConnections: policy.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    maxPerAddress: policy.maxPerAddress ?? DEFAULT_MAX_PER_ADDRESS,
    firstRequestMs: policy.timeoutMs,
  };
}

/** Failed handshakes on the NRPE port, in words for the admin (listener/tls-peer.ts). */
const NRPE_TLS_WORDS: TlsFailureWords = {
  'not-tls':
    'the client sent a plain NRPE packet to this TLS port: the client needs TLS (check_nrpe without -n), or set [/settings/remote/server] use ssl = false for plain clients',
  'no-shared-cipher':
    'the client offered no cipher this server accepts: a check_nrpe without a certificate offers only anonymous DH, which needs aNULL (or ADH) in [/settings/remote/server] allowed ciphers; with a certificate on this server, give the client a cipher list with certificate suites (check_nrpe -L), or compare the two lists',
  'old-protocol':
    'the client speaks a TLS version below what this server accepts (TLS 1.2 and later): update the client, or use its --ssl-version option',
};
