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
 * - connections are capped in total and per address, and one that has not
 *   completed its TLS handshake and first frame within the idle timeout of
 *   being accepted is closed, however it trickles (connection-guard.ts).
 */
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer, type TLSSocket, type TlsOptions } from 'node:tls';
import { AgentError, errorMessage } from '../../errors.js';
import type { Logger } from '../../log.js';
import { decode, encode, Plugin, type MessageName } from '../plugin/codec.js';
import { escapeLog } from '../../log-escape.js';
import { ConnectionGuard, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_PER_ADDRESS, type ConnectionLimits } from '../connection-guard.js';
import { FrameReader } from './frame-reader.js';
import {
  encodeFrame,
  errorBody,
  FLAG_CLOSE,
  FrameKind,
  kindName,
  KIND_MESSAGE,
  MESSAGE_VERSION,
  peekHeader,
  replyHeader,
  type Frame,
} from './framing.js';

export interface PeerInfo {
  address: string;
  port: number;
  /** Subject CN of a verified client certificate, when one was presented. */
  certificate?: string;
}

export interface AgentHandlers {
  /** Encoded QueryRequestMessage in, encoded QueryResponseMessage out. */
  query(request: Uint8Array, peer: PeerInfo): Promise<Uint8Array>;
  /** Encoded ExecuteRequestMessage in, encoded ExecuteResponseMessage out. */
  exec(request: Uint8Array, peer: PeerInfo): Promise<Uint8Array>;
  /** Encoded SubmitResponseMessage in; rejecting turns the acknowledgement into an Error frame. */
  submit(message: Uint8Array, peer: PeerInfo): Promise<void>;
}

export interface AgentPolicy {
  isAllowed(address: string | undefined): boolean;
  /** Largest frame body accepted. */
  maxFrame: number;
  /** Close a connection with nothing in flight after this many ms without a request. */
  idleTimeoutMs: number;
  /** Requests in flight per connection before reading pauses (default 64). */
  maxInFlight?: number;
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
}

export interface AgentListener {
  address(): AddressInfo;
  /** Open connections now. */
  connections(): number;
  /** New allowed hosts, limits and timeouts; open connections from now refused addresses are closed. */
  setPolicy(policy: AgentPolicy): void;
  /** New TLS settings for new connections; open ones finish their requests and are closed. */
  setTls(tls: TlsOptions | undefined): void;
  /** Stop accepting, let in-flight requests finish (at most graceMs), close every connection. */
  close(graceMs?: number): Promise<void>;
}

/** Starts listening; rejects with AGENT_ERR_AGENT_LISTEN when the port cannot be bound. */
export async function startAgentListener(options: AgentListenerOptions): Promise<AgentListener> {
  let policy: AgentPolicy = options;
  let tlsServer: TlsServer | undefined;
  const conns = new Set<ServedConnection>();
  const log = options.log;
  const guard = new ConnectionGuard(limitsOf(policy), log);

  const makeTls = (tls: TlsOptions | undefined): TlsServer | undefined => {
    if (!tls) return undefined;
    const server = createTlsServer({ ...tls, handshakeTimeout: policy.idleTimeoutMs });
    server.on('secureConnection', (socket: TLSSocket) => {
      const peer: PeerInfo = { address: socket.remoteAddress ?? '', port: socket.remotePort ?? 0 };
      // Optional client certificates (verify mode peer): none is fine, an invalid one is not.
      if (tls.requestCert && !socket.authorized && Object.keys(socket.getPeerCertificate() ?? {}).length > 0) {
        log.warning(`connection from ${escapeLog(peer.address)} refused: client certificate rejected (${String(socket.authorizationError)})`);
        socket.destroy();
        return;
      }
      const cn = socket.authorized ? socket.getPeerCertificate()?.subject?.CN : undefined;
      if (typeof cn === 'string') peer.certificate = cn;
      serve(socket, peer);
    });
    server.on('tlsClientError', (err: NodeJS.ErrnoException, socket) => {
      // A peer that went away (or was closed by the connection guard, which logs that) is no TLS problem.
      const gone = err.code === 'ECONNRESET' || /socket hang up/.test(err.message);
      (gone ? log.debug : log.warning)(`TLS handshake with ${escapeLog(socket.remoteAddress ?? '?')} failed: ${errorMessage(err)}`);
    });
    return server;
  };
  tlsServer = makeTls(options.tls);

  const serve = (socket: Socket, peer: PeerInfo): void => {
    const conn = new ServedConnection(socket, peer, () => policy, options.handlers, log, () => guard.served(socket));
    conns.add(conn);
    socket.once('close', () => conns.delete(conn));
  };

  const server: NetServer = createNetServer((socket) => {
    if (!policy.isAllowed(socket.remoteAddress)) {
      log.warning(`connection from ${escapeLog(socket.remoteAddress ?? '?')} refused: not in allowed hosts`);
      socket.destroy();
      return;
    }
    if (!guard.admit(socket)) return;
    socket.on('error', (err) => log.debug(`connection from ${escapeLog(socket.remoteAddress ?? '?')}: ${errorMessage(err)}`));
    if (tlsServer) tlsServer.emit('connection', socket);
    else serve(socket, { address: socket.remoteAddress ?? '', port: socket.remotePort ?? 0 });
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      reject(new AgentError('AGENT_ERR_AGENT_LISTEN', [`${options.host || '*'}:${options.port}`, err.code ?? err.message], { cause: err }));
    };
    server.once('error', onError);
    server.listen({ port: options.port, ...(options.host ? { host: options.host } : {}) }, () => {
      server.off('error', onError);
      resolve();
    });
  });
  server.on('error', (err) => log.error(`listener: ${errorMessage(err)}`));

  return {
    address: () => server.address() as AddressInfo,
    connections: () => conns.size,
    setPolicy(next) {
      policy = next;
      guard.setLimits(limitsOf(next));
      for (const c of conns) if (!next.isAllowed(c.peer.address)) c.drain();
    },
    setTls(tls) {
      tlsServer = makeTls(tls);
      for (const c of conns) c.drain();
    },
    async close(graceMs = 2000) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const c of conns) c.drain();
      const deadline = Date.now() + graceMs;
      // Bounded wait for in-flight answers; then whatever is left is cut.
      while (conns.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      for (const c of conns) c.destroy();
      guard.dispose();
      await closed;
    },
  };
}

/** One accepted connection: frames in, answers out. */
class ServedConnection {
  private readonly reader: FrameReader;
  private inFlight = 0;
  private draining = false;

  constructor(
    private readonly socket: Socket,
    readonly peer: PeerInfo,
    private readonly policy: () => AgentPolicy,
    private readonly handlers: AgentHandlers,
    private readonly log: Logger,
    /** Called once, when the first complete frame has arrived. */
    private served: (() => void) | undefined,
  ) {
    this.reader = new FrameReader(policy().maxFrame);
    socket.setNoDelay(true);
    socket.setTimeout(policy().idleTimeoutMs, () => {
      if (this.inFlight === 0) {
        log.debug(`closing idle connection from ${escapeLog(peer.address)}`);
        socket.end();
      }
    });
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => log.debug(`connection from ${escapeLog(peer.address)}: ${errorMessage(err)}`));
  }

  /** Finish the requests in flight, then close; reads nothing more. */
  drain(): void {
    this.draining = true;
    this.socket.pause();
    if (this.inFlight === 0) this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    if (this.draining) return;
    const { frames, fatal } = this.reader.push(chunk);
    if (frames.length > 0 && this.served) {
      this.served();
      this.served = undefined;
    }
    for (const frame of frames) this.dispatch(frame);
    if (fatal !== undefined) {
      this.log.warning(`closing connection from ${escapeLog(this.peer.address)}: ${fatal}`);
      this.send(FrameKind.Error, errorBody(new AgentError('AGENT_ERR_AGENT_FRAME', [fatal]).message), FLAG_CLOSE);
      this.draining = true;
      this.socket.end();
      // A peer that never reads must not hold the socket open.
      setTimeout(() => this.socket.destroy(), 1000).unref();
    }
  }

  private dispatch(frame: Frame): void {
    const kind = frame.kind;
    if (kind !== FrameKind.QueryRequest && kind !== FrameKind.ExecRequest && kind !== FrameKind.Submit) {
      const id = peekHeader(frame.body).id;
      const problem = `frame kind ${kind} (${kindName(kind)}) is not a request; requests are QueryRequest (1), ExecRequest (3) and Submit (5)`;
      this.send(FrameKind.Error, errorBody(new AgentError('AGENT_ERR_AGENT_FRAME', [problem]).message, id));
      return;
    }
    this.inFlight++;
    if (this.inFlight >= (this.policy().maxInFlight ?? 64)) this.socket.pause();
    void this.answer(kind, frame.body).then(
      ([answerKind, body]) => this.finish(answerKind, body),
      (err) => this.finish(FrameKind.Error, errorBody(`internal error: ${errorMessage(err)}`, peekHeader(frame.body).id)),
    );
  }

  private finish(kind: FrameKind, body: Uint8Array): void {
    this.inFlight--;
    this.send(kind, body);
    if (this.draining) {
      if (this.inFlight === 0) this.socket.end();
    } else if (this.inFlight < (this.policy().maxInFlight ?? 64) && this.socket.isPaused()) {
      this.socket.resume();
    }
  }

  /** The answer frame to one request frame; never rejects for bad input. */
  private async answer(kind: FrameKind.QueryRequest | FrameKind.ExecRequest | FrameKind.Submit, body: Uint8Array): Promise<[FrameKind, Uint8Array]> {
    const name = KIND_MESSAGE[kind];
    const peeked = peekHeader(body);
    const id = peeked.id;
    // Checked on the raw header: a decoder drops enum values it does not know.
    if (peeked.version !== undefined && peeked.version !== MESSAGE_VERSION) {
      const version = peeked.version;
      const max = Math.max(peeked.maxSupportedVersion ?? version, version);
      const problem = new AgentError('AGENT_ERR_AGENT_VERSION', [version, version, max, `${MESSAGE_VERSION} to ${MESSAGE_VERSION}`]).message;
      return [FrameKind.Error, errorBody(problem, id)];
    }
    let message: { header: Plugin.IHeader; payload: unknown[] };
    try {
      message = decode(name, body) as unknown as { header: Plugin.IHeader; payload: unknown[] };
    } catch (err) {
      return [FrameKind.Error, errorBody(errorMessage(err), id)];
    }
    try {
      if (kind === FrameKind.QueryRequest) {
        return [FrameKind.QueryResponse, withHeader('QueryResponseMessage', await this.handlers.query(body, this.peer), Plugin.Header.Type.QUERY_RESPONSE, id)];
      }
      if (kind === FrameKind.ExecRequest) {
        return [FrameKind.ExecResponse, withHeader('ExecuteResponseMessage', await this.handlers.exec(body, this.peer), Plugin.Header.Type.EXEC_RESPONSE, id)];
      }
      await this.handlers.submit(body, this.peer);
      return [FrameKind.SubmitAck, ackBody(message.payload as Plugin.QueryResponseMessage.IResponse[], id)];
    } catch (err) {
      this.log.error(`${kindName(kind)} from ${escapeLog(this.peer.address)} failed: ${errorMessage(err)}`);
      return [FrameKind.Error, errorBody(errorMessage(err), id)];
    }
  }

  private send(kind: FrameKind, body: Uint8Array, flags = 0): void {
    if (this.socket.writable) this.socket.write(encodeFrame(kind, body, flags));
  }
}

// ---------------------------------------------------------------- helpers

function limitsOf(policy: AgentPolicy): ConnectionLimits {
  return {
    maxConnections: policy.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    maxPerAddress: policy.maxPerAddress ?? DEFAULT_MAX_PER_ADDRESS,
    firstRequestMs: policy.idleTimeoutMs,
  };
}

/** The acknowledgement of a submission: one OK entry per submitted result. */
function ackBody(payload: Plugin.QueryResponseMessage.IResponse[], id: number | undefined): Uint8Array {
  return encode('QueryResponseMessage', {
    header: replyHeader(Plugin.Header.Type.QUERY_RESPONSE, id),
    payload: payload.map((p) => ({ command: p.command ?? '', result: Plugin.ResultCode.OK, message: `accepted ${p.command ?? ''}`.trimEnd() })),
  });
}

/** The handler's answer with the request's id and our versions in its header (re-encoded only when needed). */
function withHeader(name: MessageName, bytes: Uint8Array, type: Plugin.Header.Type, id: number | undefined): Uint8Array {
  const peeked = peekHeader(bytes);
  if (peeked.id === id && peeked.version === MESSAGE_VERSION && peeked.maxSupportedVersion === MESSAGE_VERSION) return bytes;
  const message = decode(name, bytes) as unknown as { header: Plugin.IHeader; payload: unknown[] };
  return encode(name, { ...message, header: { ...replyHeader(type, id) } } as never);
}
