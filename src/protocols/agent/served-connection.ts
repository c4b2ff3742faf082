/**
 * One accepted agent-protocol connection: frames in, one answer frame per
 * request frame out (see protocols/agent/server.ts for the guarantees).
 * Requests run concurrently and are answered in completion order; reading
 * pauses while too many are in flight or while the answers wait in the
 * socket's buffer for a peer that does not read them; every query gets the
 * connection's peer-gone signal; a frame that breaks the stream gets
 * an Error frame with the close flag and the connection closes.
 */
import type { Socket } from 'node:net';
import { AgentError, errorMessage } from '../../errors.js';
import { escapeForLog, type Logger } from '../../log.js';
import { decode, encode, type Plugin, proto, type MessageName } from '../../core/plugin/codec.js';
import { escapeLog } from '../../log-escape.js';
import { FrameReader } from './frame-reader.js';
import { peerGone } from '../listener/peer-gone.js';
import {
  encodeFrame,
  errorBody,
  FLAG_CLOSE,
  FrameKind,
  isRequestKind,
  kindName,
  KIND_MESSAGE,
  MESSAGE_VERSION,
  peekHeader,
  replyHeader,
  type Frame,
} from './framing.js';
import { faultKind, PEER_EVENTS } from '../../log-throttle.js';

export interface PeerInfo {
  address: string;
  port: number;
  /** Subject CN of a verified client certificate, when one was presented. */
  certificate?: string;
}

export interface AgentHandlers {
  /** Encoded QueryRequestMessage in, encoded QueryResponseMessage out; `signal` aborts when the peer has gone. */
  query(request: Uint8Array, peer: PeerInfo, signal: AbortSignal): Promise<Uint8Array>;
  /** Encoded ExecuteRequestMessage in, encoded ExecuteResponseMessage out. */
  exec(request: Uint8Array, peer: PeerInfo): Promise<Uint8Array>;
  /** Encoded SubmitResponseMessage in; rejecting turns the acknowledgement into an Error frame. */
  submit(message: Uint8Array, peer: PeerInfo): Promise<void>;
}

/** What one connection reads of the listener's policy (read again for each frame). */
export interface ConnectionPolicy {
  /** Largest frame body accepted. */
  maxFrame: number;
  /** Close a connection with nothing in flight after this many ms without a request. */
  idleTimeoutMs: number;
  /** Requests in flight per connection before reading pauses (default 64). */
  maxInFlight?: number;
  /** Queries (or exec commands) one request frame may carry (default 256); submitted results are not limited. */
  maxPerFrame?: number;
}

/** One accepted connection: frames in, answers out. */
export class ServedConnection {
  private readonly reader: FrameReader;
  private inFlight = 0;
  private draining = false;
  /** Aborted when the connection closes: the work of a peer that has gone is cancelled. */
  private readonly gone: AbortSignal;
  /** Answers are waiting in the socket's buffer for the peer to read them: no more requests are read meanwhile. */
  private writeBlocked = false;

  constructor(
    private readonly socket: Socket,
    readonly peer: PeerInfo,
    private readonly policy: () => ConnectionPolicy,
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
    this.gone = peerGone(socket, peer.address);
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
      PEER_EVENTS.warn(
        this.log,
        // Per kind of fault (its words without figures): each reason is said, a flood of one is counted.
        faultKind('agent-closed', fatal),
        this.peer.address,
        `closing connection from ${escapeLog(this.peer.address)}: ${escapeForLog(fatal)}`,
      );
      this.send(FrameKind.Error, errorBody(new AgentError('AGENT_ERR_AGENT_FRAME', [fatal]).message), FLAG_CLOSE);
      this.draining = true;
      this.socket.end();
      // A peer that never reads must not hold the socket open.
      setTimeout(() => this.socket.destroy(), 1000).unref();
    }
  }

  private dispatch(frame: Frame): void {
    const kind = frame.kind;
    if (!isRequestKind(kind)) {
      const id = peekHeader(frame.body).id;
      const problem = `frame kind ${kind} (${kindName(kind)}) is not a request; requests are QueryRequest (1), ExecRequest (3) and Submit (5)`;
      this.send(FrameKind.Error, errorBody(new AgentError('AGENT_ERR_AGENT_FRAME', [problem]).message, id));
      return;
    }
    this.inFlight++;
    if (this.inFlight >= (this.policy().maxInFlight ?? 64)) this.socket.pause();
    void this.answer(kind, frame.body).then(
      ([answerKind, body]) => this.finish(answerKind, body),
      (err: unknown) =>
        this.finish(FrameKind.Error, errorBody(`internal error: ${errorMessage(err)}`, peekHeader(frame.body).id)),
    );
  }

  private finish(kind: FrameKind, body: Uint8Array): void {
    this.inFlight--;
    this.send(kind, body);
    if (this.draining) {
      if (this.inFlight === 0) this.socket.end();
    } else {
      this.resumeIfFree();
    }
  }

  /** Reading goes on when fewer requests than the limit are in flight and the peer reads its answers. */
  private resumeIfFree(): void {
    if (
      !this.draining &&
      !this.writeBlocked &&
      this.inFlight < (this.policy().maxInFlight ?? 64) &&
      this.socket.isPaused()
    )
      this.socket.resume();
  }

  /** The answer frame to one request frame; never rejects for bad input. */
  private async answer(
    kind: FrameKind.QueryRequest | FrameKind.ExecRequest | FrameKind.Submit,
    body: Uint8Array,
  ): Promise<[FrameKind, Uint8Array]> {
    const name = KIND_MESSAGE[kind];
    const peeked = peekHeader(body);
    const id = peeked.id;
    // Checked on the raw header: a decoder drops enum values it does not know.
    if (peeked.version !== undefined && peeked.version !== MESSAGE_VERSION) {
      const version = peeked.version;
      const max = Math.max(peeked.maxSupportedVersion ?? version, version);
      const problem = new AgentError('AGENT_ERR_AGENT_VERSION', [
        version,
        version,
        max,
        `${MESSAGE_VERSION} to ${MESSAGE_VERSION}`,
      ]).message;
      return [FrameKind.Error, errorBody(problem, id)];
    }
    let message: { header: Plugin.Header.$Properties; payload: unknown[] };
    try {
      message = decode(name, body) as unknown as { header: Plugin.Header.$Properties; payload: unknown[] };
    } catch (err) {
      return [FrameKind.Error, errorBody(errorMessage(err), id)];
    }
    const maxPerFrame = this.policy().maxPerFrame ?? 256;
    if (kind !== FrameKind.Submit && message.payload.length > maxPerFrame) {
      const problem = `the frame carries ${message.payload.length} payloads; at most ${maxPerFrame} are accepted ([/settings/agent/server] max queries per frame)`;
      return [FrameKind.Error, errorBody(new AgentError('AGENT_ERR_AGENT_FRAME', [problem]).message, id)];
    }
    try {
      if (kind === FrameKind.QueryRequest) {
        return [
          FrameKind.QueryResponse,
          withHeader(
            'QueryResponseMessage',
            await this.handlers.query(body, this.peer, this.gone),
            proto().Header.Type.QUERY_RESPONSE,
            id,
          ),
        ];
      }
      if (kind === FrameKind.ExecRequest) {
        return [
          FrameKind.ExecResponse,
          withHeader(
            'ExecuteResponseMessage',
            await this.handlers.exec(body, this.peer),
            proto().Header.Type.EXEC_RESPONSE,
            id,
          ),
        ];
      }
      await this.handlers.submit(body, this.peer);
      return [FrameKind.SubmitAck, ackBody(message.payload as Plugin.QueryResponseMessage.Response.$Properties[], id)];
    } catch (err) {
      this.log.error(
        `${kindName(kind)} from ${escapeLog(this.peer.address)} failed: ${escapeForLog(errorMessage(err))}`,
      );
      return [FrameKind.Error, errorBody(errorMessage(err), id)];
    }
  }

  /**
   * Writes one frame. When the socket's buffer is over its high-water mark (the peer does not
   * read its answers), reading stops until it drains: a peer cannot make the agent answer
   * requests into memory faster than it takes the answers away.
   */
  private send(kind: FrameKind, body: Uint8Array, flags = 0): void {
    if (!this.socket.writable) return;
    if (this.socket.write(encodeFrame(kind, body, flags)) || this.writeBlocked) return;
    this.writeBlocked = true;
    this.socket.pause();
    this.socket.once('drain', () => {
      this.writeBlocked = false;
      this.resumeIfFree();
    });
  }
}

// ---------------------------------------------------------------- helpers

/** The acknowledgement of a submission: one OK entry per submitted result. */
function ackBody(payload: Plugin.QueryResponseMessage.Response.$Properties[], id: number | undefined): Uint8Array {
  return encode('QueryResponseMessage', {
    header: replyHeader(proto().Header.Type.QUERY_RESPONSE, id),
    payload: payload.map((p) => ({
      command: p.command,
      result: proto().ResultCode.OK,
      message: `accepted ${p.command}`.trimEnd(),
    })),
  });
}

/** The handler's answer with the request's id and our versions in its header (re-encoded only when needed). */
function withHeader(
  name: MessageName,
  bytes: Uint8Array,
  type: Plugin.Header.Type,
  id: number | undefined,
): Uint8Array {
  const peeked = peekHeader(bytes);
  if (peeked.id === id && peeked.version === MESSAGE_VERSION && peeked.maxSupportedVersion === MESSAGE_VERSION)
    return bytes;
  const message = decode(name, bytes) as unknown as { header: Plugin.Header.$Properties; payload: unknown[] };
  return encode(name, { ...message, header: { ...replyHeader(type, id) } } as never);
}
