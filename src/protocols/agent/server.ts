/**
 * The agent-protocol listener: accepts TCP (optionally TLS) connections,
 * splits them into frames and answers each request frame through the
 * handlers. It knows nothing of the core; the AgentServer module supplies
 * the handlers and the policy.
 *
 * Guarantees:
 * - every request frame gets exactly one answer frame with the request's
 *   header id: QueryRequest → QueryResponse, ExecRequest → ExecResponse,
 *   Submit → SubmitAck, or Error when the body cannot be decoded, a
 *   required field is missing, the version is not spoken, the kind is not a
 *   request, or the handler failed. Requests run concurrently and are
 *   answered in completion order (the client matches by id);
 * - a bad magic, an unknown frame version or a frame over the limit gets
 *   one Error frame with the close flag, then the connection is closed,
 *   because the stream can no longer be split; other connections carry on;
 * - a peer outside the allowed hosts is disconnected before any TLS or
 *   protocol byte is exchanged; with TLS, the handshake (client
 *   certificates) is done by a tls.Server fed with the accepted sockets, so
 *   TLS settings can change without rebinding the port (`setTls`);
 * - an idle connection (no request in flight) is closed after the idle
 *   timeout;
 * - a peer that does not read its answers is not read from until their
 *   bytes drain (served-connection.ts), so it cannot make the agent answer
 *   into memory without bound;
 * - connections are capped in total and per address, and one that has not
 *   completed its TLS handshake and first frame within the idle timeout of
 *   being accepted is closed, however it trickles (connection-guard.ts).
 */
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer, type TLSSocket, type TlsOptions } from 'node:tls';
import { errorMessage } from '../../errors.js';
import type { Logger } from '../../log.js';
import { escapeLog } from '../../log-escape.js';
import {
  ConnectionGuard,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_PER_ADDRESS,
  type ConnectionLimits,
} from '../connection-guard.js';
import { closeGracefully, CLOSE_GRACE_MS } from '../listener/graceful-close.js';
import { listenOn } from '../listener/listen.js';
import { logTlsClientError, tlsPeer, type TlsFailureWords } from '../listener/tls-peer.js';
import { ServedConnection, type AgentHandlers, type ConnectionPolicy, type PeerInfo } from './served-connection.js';

export type { AgentHandlers, PeerInfo } from './served-connection.js';

export interface AgentPolicy extends ConnectionPolicy {
  isAllowed(address: string | undefined): boolean;
  /** Where the allowed hosts come from, for the refusal log line (`[/settings/default] allowed hosts (agent.ini:29)`). */
  allowedHostsFrom?: string;
  /** Connections open at once (default 256). */
  maxConnections?: number;
  /** Connections open at once from one address (default 64). */
  maxPerAddress?: number;
}

export interface AgentListenerOptions extends AgentPolicy {
  host: string;
  port: number;
  /** Server TLS options (certificate, ca, requestCert, ...); plain TCP when absent. */
  tls?: TlsOptions;
  handlers: AgentHandlers;
  log: Logger;
  /** The connection guard (listener/managed-listener.ts hands its own); one with the policy's limits when absent. */
  guard?: ConnectionGuard;
}

export interface AgentListener {
  address(): AddressInfo;
  /** Open connections now. */
  connections(): number;
  /** New allowed hosts, limits and timeouts; open connections from now refused addresses are closed. */
  setPolicy(policy: AgentPolicy): void;
  /** New TLS settings for new connections; open ones finish their requests and are closed. Always taken (true). */
  setTls(tls: TlsOptions | undefined): boolean;
  /** Stop accepting, let in-flight requests finish (at most graceMs), close every connection. */
  close(graceMs?: number): Promise<void>;
}

/** Starts listening; rejects with AGENT_ERR_AGENT_LISTEN when the port cannot be bound. */
export async function startAgentListener(options: AgentListenerOptions): Promise<AgentListener> {
  let policy: AgentPolicy = options;
  let tlsServer: TlsServer | undefined;
  const conns = new Set<ServedConnection>();
  const log = options.log;
  const guard = options.guard ?? new ConnectionGuard(limitsOf(policy), log, 'agent');

  const makeTls = (tls: TlsOptions | undefined): TlsServer | undefined => {
    if (!tls) return undefined;
    const server = createTlsServer({ ...tls, handshakeTimeout: policy.idleTimeoutMs });
    server.on('secureConnection', (socket: TLSSocket) => {
      const verified = tlsPeer(socket, tls.requestCert, log);
      if (verified) serve(socket, { address: socket.remoteAddress ?? '', port: socket.remotePort ?? 0, ...verified });
    });
    server.on('tlsClientError', logTlsClientError(log, AGENT_TLS_WORDS));
    return server;
  };
  tlsServer = makeTls(options.tls);

  const serve = (socket: Socket, peer: PeerInfo): void => {
    const conn = new ServedConnection(
      socket,
      peer,
      () => policy,
      options.handlers,
      log,
      () => guard.served(socket),
    );
    conns.add(conn);
    socket.once('close', () => conns.delete(conn));
  };

  const server: NetServer = createNetServer((socket) => {
    if (!guard.admit(socket, policy)) return;
    socket.on('error', (err) =>
      log.debug(`connection from ${escapeLog(socket.remoteAddress ?? '?')}: ${errorMessage(err)}`),
    );
    if (tlsServer) tlsServer.emit('connection', socket);
    else serve(socket, { address: socket.remoteAddress ?? '', port: socket.remotePort ?? 0 });
  });

  await listenOn(server, options.host, options.port, 'AGENT_ERR_AGENT_LISTEN');
  server.on('error', (err) => log.error(`listener: ${errorMessage(err)}`));

  return {
    address: () => server.address() as AddressInfo,
    connections: () => conns.size,
    setPolicy(next) {
      policy = next;
      // A guard handed in is its owner's to limit.
      if (!options.guard) guard.setLimits(limitsOf(next));
      for (const c of conns) if (!next.isAllowed(c.peer.address)) c.drain();
    },
    setTls(tls) {
      tlsServer = makeTls(tls);
      for (const c of conns) c.drain();
      return true;
    },
    close(graceMs = CLOSE_GRACE_MS) {
      return closeGracefully({
        server,
        open: () => conns.size,
        drain: () => {
          for (const c of conns) c.drain();
        },
        cut: () => {
          for (const c of conns) c.destroy();
          guard.dispose();
        },
        graceMs,
      });
    },
  };
}
// ---------------------------------------------------------------- helpers

function limitsOf(policy: AgentPolicy): ConnectionLimits {
  return {
    maxConnections: policy.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    maxPerAddress: policy.maxPerAddress ?? DEFAULT_MAX_PER_ADDRESS,
    firstRequestMs: policy.idleTimeoutMs,
  };
}

/** Failed handshakes on the agent-protocol port, in words for the admin (listener/tls-peer.ts). */
const AGENT_TLS_WORDS: TlsFailureWords = {
  'not-tls':
    'the client spoke plain text to this TLS port: set use ssl = true in the client target, or [/settings/agent/server] use ssl = false for plain clients',
  'no-shared-cipher':
    'the client offered no cipher this server accepts: compare [/settings/agent/server] allowed ciphers with the allowed ciphers of the client target',
  'old-protocol':
    'the client speaks a TLS version below what this server accepts (TLS 1.2 and later): update the client',
};
