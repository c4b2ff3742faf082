/**
 * One agent-protocol connection to one peer (plain TCP or TLS) with its
 * requests in flight, matched to answers by the header id; used through the
 * pool in protocols/agent/client.ts. Failures are described with the reason
 * and a hint (refused, unreachable, TLS, closed before answering).
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { AgentError, errorMessage } from '../../errors.js';
import { decode, encode, messageHeader, type Plugin, proto } from '../../core/plugin/codec.js';
import { FrameReader } from './frame-reader.js';
import { encodeFrame, FLAG_CLOSE, FrameKind, isFrameKind, kindName, KIND_MESSAGE, peekHeader } from './framing.js';
import { isTlsError } from '../tls-errors.js';
import { describeSocketError, tlsHint, type TlsHintWords } from '../client-errors.js';

export interface AgentEndpoint {
  host: string;
  port: number;
  /** Builds the TLS options when a connection is opened; plain TCP when absent. */
  tls?: () => ConnectionOptions;
  /** Identifies the TLS settings in the pool key (file names, modes, ciphers). */
  tlsKey?: string;
}

export interface RequestOptions {
  timeoutMs: number;
  /** Extra attempts after a connection failure (default 0). */
  retry?: number;
  signal?: AbortSignal;
  /** Header `sender` (for submissions: the name the peer files results under). */
  sender?: string;
}

export type RequestKind = FrameKind.QueryRequest | FrameKind.ExecRequest | FrameKind.Submit;
const ANSWER: Record<RequestKind, FrameKind> = {
  [FrameKind.QueryRequest]: FrameKind.QueryResponse,
  [FrameKind.ExecRequest]: FrameKind.ExecResponse,
  [FrameKind.Submit]: FrameKind.SubmitAck,
};
const HEADER_TYPE: Record<RequestKind, Plugin.Header.Type> = {
  [FrameKind.QueryRequest]: proto().Header.Type.QUERY_REQUEST,
  [FrameKind.ExecRequest]: proto().Header.Type.EXEC_REQUEST,
  // Header.Type has no submit value; a submission carries query responses.
  [FrameKind.Submit]: proto().Header.Type.QUERY_RESPONSE,
};
/** A failure before any answer arrived: safe to retry on a new connection. */
export class ConnectionLost extends Error {
  constructor(override readonly cause: AgentError) {
    super(cause.message);
  }
}

interface Pending {
  kind: RequestKind;
  resolve(message: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** One socket to one peer with its in-flight requests. */
export class ClientConnection {
  dead = false;
  private readonly socket: Socket | TLSSocket;
  private readonly ready: Promise<void>;
  private readonly reader: FrameReader;
  private readonly inFlight = new Map<number, Pending>();
  private nextId = 1;
  private answered = false;
  private secure = false;
  private connected = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly name: string;

  constructor(
    private readonly endpoint: AgentEndpoint,
    maxFrame: number,
    private readonly idleMs: number,
    private readonly sender: string | undefined,
    private readonly onDead: () => void,
  ) {
    this.name = `${endpoint.host}:${endpoint.port}`;
    this.reader = new FrameReader(maxFrame);
    let tls: ConnectionOptions | undefined;
    let setupError: AgentError | undefined;
    try {
      tls = endpoint.tls?.();
    } catch (err) {
      setupError =
        err instanceof AgentError ? err : new AgentError('AGENT_ERR_AGENT_TLS', [this.name, errorMessage(err)]);
    }
    this.socket = tls
      ? tlsConnect({
          ...tls,
          host: endpoint.host,
          port: endpoint.port,
          servername: isIp(endpoint.host) ? '' : endpoint.host,
        })
      : netConnect({ host: endpoint.host, port: endpoint.port });
    if (setupError) this.socket.destroy();
    this.ready = new Promise<void>((resolve, reject) => {
      if (setupError) return reject(setupError);
      this.socket.once(tls ? 'secureConnect' : 'connect', () => {
        this.secure = Boolean(tls);
        this.connected = true;
        resolve();
      });
      this.socket.once('error', (err: NodeJS.ErrnoException) => reject(this.describe(err)));
      this.socket.once('close', () =>
        reject(new ConnectionLost(new AgentError('AGENT_ERR_AGENT_CLOSED', [this.name, this.closeHint()]))),
      );
    });
    this.ready.catch(() => undefined);
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', (err: NodeJS.ErrnoException) => this.fail(this.describe(err)));
    this.socket.on('close', () =>
      this.fail(new ConnectionLost(new AgentError('AGENT_ERR_AGENT_CLOSED', [this.name, this.closeHint()]))),
    );
  }

  async request(kind: RequestKind, payload: unknown[], options: RequestOptions): Promise<unknown> {
    const id = this.nextId++;
    const body = encode(KIND_MESSAGE[kind], {
      header: messageHeader(HEADER_TYPE[kind], { id, sender: options.sender ?? this.sender }),
      payload,
    } as never);
    const seconds = Math.round(options.timeoutMs / 100) / 10;
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        const error = new AgentError('AGENT_ERR_AGENT_TIMEOUT', [this.name, seconds]);
        // A connection still not up is abandoned, so the next request dials again.
        if (!this.connected) this.fail(error);
        this.settle(id, error);
      }, options.timeoutMs);
      const onAbort = (): void => {
        clearTimeout(timer);
        this.inFlight.delete(id);
        reject(options.signal!.reason instanceof Error ? options.signal!.reason : new Error('aborted'));
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const done = (): void => options.signal?.removeEventListener('abort', onAbort);
      this.inFlight.set(id, {
        kind,
        timer,
        resolve: (m) => {
          done();
          resolve(m);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      this.busy();
      this.ready.then(
        () => this.socket.write(encodeFrame(kind, body)),
        (err: unknown) => this.settle(id, err),
      );
    });
  }

  close(): Promise<void> {
    this.dead = true;
    return new Promise((resolve) => {
      if (this.socket.destroyed) return resolve();
      this.socket.once('close', () => resolve());
      this.socket.end();
      setTimeout(() => this.socket.destroy(), 500).unref();
    });
  }

  private onData(chunk: Buffer): void {
    const { frames, fatal } = this.reader.push(chunk);
    for (const frame of frames) {
      this.answered = true;
      const id = peekHeader(frame.body).id;
      const pending = id === undefined ? undefined : this.inFlight.get(id);
      const kind = isFrameKind(frame.kind) ? frame.kind : undefined;
      if (kind === FrameKind.Error) {
        const text = errorText(frame.body);
        if (pending) this.settle(id!, new AgentError('AGENT_ERR_AGENT_PEER_ERROR', [this.name, text]));
        else if (this.inFlight.size === 1) {
          const only = this.inFlight.keys().next().value;
          if (only !== undefined) this.settle(only, new AgentError('AGENT_ERR_AGENT_PEER_ERROR', [this.name, text]));
        }
        if ((frame.flags & FLAG_CLOSE) !== 0)
          this.fail(new AgentError('AGENT_ERR_AGENT_PEER_ERROR', [this.name, text]));
        continue;
      }
      if (!pending) continue;
      if (kind !== ANSWER[pending.kind]) {
        this.settle(
          id!,
          new AgentError('AGENT_ERR_AGENT_FRAME', [
            `${this.name} answered a ${kindName(pending.kind)} with ${kindName(frame.kind)}`,
          ]),
        );
        continue;
      }
      try {
        this.settle(id!, undefined, decode(KIND_MESSAGE[kind], frame.body));
      } catch (err) {
        this.settle(id!, new AgentError('AGENT_ERR_AGENT_FRAME', [`answer from ${this.name}: ${errorMessage(err)}`]));
      }
    }
    if (fatal !== undefined) this.fail(new AgentError('AGENT_ERR_AGENT_FRAME', [`from ${this.name}: ${fatal}`]));
  }

  private settle(id: number, err: unknown, message?: unknown): void {
    const pending = this.inFlight.get(id);
    if (!pending) return;
    this.inFlight.delete(id);
    clearTimeout(pending.timer);
    if (err !== undefined) pending.reject(err as Error);
    else pending.resolve(message);
    this.idleCheck();
  }

  /** Fail every request in flight and drop the connection. */
  private fail(err: Error): void {
    if (!this.dead) {
      this.dead = true;
      this.onDead();
      this.socket.destroy();
    }
    for (const id of [...this.inFlight.keys()]) this.settle(id, err);
    if (this.idleTimer) clearTimeout(this.idleTimer);
  }

  private busy(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.socket.ref();
  }

  /** With nothing in flight the socket must not keep the process alive. */
  private idleCheck(): void {
    if (this.inFlight.size > 0 || this.dead) return;
    this.socket.unref();
    this.idleTimer = setTimeout(() => void this.close(), this.idleMs);
    this.idleTimer.unref();
  }

  private describe(err: NodeJS.ErrnoException): Error {
    const code = err.code ?? '';
    if (code === 'ECONNREFUSED')
      return new ConnectionLost(new AgentError('AGENT_ERR_AGENT_CONNECT', [this.name, 'connection refused']));
    if (isTlsError(err)) return new AgentError('AGENT_ERR_AGENT_TLS', [this.name, tlsHint(err, HINT_WORDS)]);
    if (code === 'ECONNRESET' || code === 'EPIPE')
      return new ConnectionLost(new AgentError('AGENT_ERR_AGENT_CLOSED', [this.name, `(${code}) ${this.closeHint()}`]));
    return new AgentError('AGENT_ERR_AGENT_CONNECT', [this.name, describeSocketError(err)]);
  }

  private closeHint(): string {
    if (this.endpoint.tls && !this.secure)
      return 'during the TLS handshake (is this address in its allowed hosts? does it use TLS?)';
    if (this.secure && !this.answered)
      return "before answering (it may have rejected our client certificate: is it signed by the peer's ca?)";
    if (!this.endpoint.tls && !this.answered)
      return 'before answering (is this address in its allowed hosts? does it expect TLS?)';
    return 'before answering';
  }
}

// ---------------------------------------------------------------- helpers

function errorText(body: Uint8Array): string {
  try {
    const m = decode('QueryResponseMessage', body);
    return m.payload.map((p) => p.message).join('; ') || 'no message';
  } catch {
    return 'an Error frame that could not be decoded';
  }
}

/** The agent client's hint words: those of a target's settings. */
const HINT_WORDS: TlsHintWords = {
  peer: 'the peer',
  certificate: 'certificate and certificate key',
  ca: 'ca and verify mode',
  plain: 'try --no-ssl or check use ssl on the peer',
};

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}
