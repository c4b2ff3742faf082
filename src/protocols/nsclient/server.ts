/**
 * The check_nt server: a listener factory that knows nothing about the core
 * or the reconciler (the NRPE server's twin, protocols/nrpe/server.ts).
 * Each connection carries one request: check_nt writes
 * `PASSWORD&CODE&ARGS` in one piece without terminator and reads the answer
 * until the server closes, so the first chunk read (up to a line break) is
 * the request, as NSClient++ reads it. The server asks `answer(text, peer)`,
 * writes the answer (cut to what check_nt's 8 KiB buffer holds) and closes.
 *
 * Peers outside `allowed hosts`, over the connection limits or without a
 * complete request within the timeout are dropped by the connection guard
 * (logged there); a request over NSCLIENT_MAX_REQUEST bytes is answered
 * `ERROR: Request too long.`, logged and closed; nothing a peer sends makes
 * the server buffer more than that.
 */
import * as net from 'node:net';
import * as tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { errorMessage } from '../../errors.js';
import { escapeForLog, type Logger } from '../../log.js';
import { escapeLog } from '../../log-escape.js';
import { countRefusal } from '../../core/work-counters.js';
import { cutUtf8 } from '../../core/result.js';
import type { ConnectionGuard, HostFilter } from '../connection-guard.js';
import { peerGone } from '../listener/peer-gone.js';
import { closeGracefully } from '../listener/graceful-close.js';
import { listenOn } from '../listener/listen.js';
import { logTlsClientError, tlsPeer, type TlsFailureWords } from '../listener/tls-peer.js';
import { NSCLIENT_MAX_REQUEST } from './request.js';
import { PEER_EVENTS } from '../../log-throttle.js';

/** What may change while the server runs (applied to the next connection). */
export interface NsClientServerPolicy extends HostFilter {
  /** Milliseconds to write the answer once the request is complete (the guard's deadline covers the request). */
  timeoutMs: number;
}

export interface NsClientServerOptions {
  /** Address to bind; empty means every address. */
  host: string;
  port: number;
  /** TLS server options; undefined means plain TCP (what check_nt speaks). */
  tls: tls.TlsOptions | undefined;
  policy: NsClientServerPolicy;
  guard: ConnectionGuard;
  /** The answer to a request (one line of text); a rejection becomes `ERROR: …`. `signal` aborts when the peer has gone. */
  answer: (request: string, peer: string, signal: AbortSignal) => Promise<string>;
  log: Logger;
}

export interface NsClientServer {
  address(): AddressInfo;
  setPolicy(policy: NsClientServerPolicy): void;
  /** New TLS options for new connections on the same port; false when the listener is plain (or `tls` undefined). */
  setTls(tls: tls.TlsOptions | undefined): boolean;
  close(): Promise<void>;
}

/** check_nt reads the answer into 8192 bytes, the last one a NUL. */
export const NSCLIENT_MAX_ANSWER = 8191;

/** Starts listening; rejects with AGENT_ERR_NSCLIENT_LISTEN when the address cannot be bound. */
export async function startNsClientServer(o: NsClientServerOptions): Promise<NsClientServer> {
  let policy = o.policy;
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket): void => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };
  const accept = (raw: net.Socket): boolean => {
    if (!o.guard.admit(raw, policy)) return false;
    track(raw);
    return true;
  };
  const serve = (socket: net.Socket): void => {
    socket.setNoDelay(true);
    track(socket);
    if (socket instanceof tls.TLSSocket && !tlsPeer(socket, false, o.log)) return;
    handleConnection(socket, policy, o);
  };
  const server: net.Server = o.tls
    ? tls.createServer(o.tls, serve)
    : // Half-open: a peer that shuts down its side after the request (nc -N, a script) still gets the answer.
      net.createServer({ allowHalfOpen: true }, (socket) => {
        if (accept(socket)) serve(socket);
      });
  if (o.tls) {
    // Refused before the handshake, as on the other listeners.
    server.on('connection', (raw: net.Socket) => void accept(raw));
    server.on('tlsClientError', logTlsClientError(o.log, NSCLIENT_TLS_WORDS));
  }
  // A bind failure is the rejection below (reported once by the caller); only errors after it are logged here.
  await listenOn(server, o.host, o.port, 'AGENT_ERR_NSCLIENT_LISTEN');
  server.on('error', (err) => o.log.error(`listener error: ${err.message}`));
  return {
    address: () => server.address() as AddressInfo,
    setPolicy(next) {
      policy = next;
    },
    setTls(next) {
      if (!next || !(server instanceof tls.Server)) return false;
      server.setSecureContext(next);
      return true;
    },
    close: () =>
      closeGracefully({
        server,
        open: () => sockets.size,
        drain: () => undefined,
        cut: () => {
          for (const s of sockets) s.destroy();
          o.guard.dispose();
        },
      }),
  };
}

// ---------------------------------------------------------------- helpers

function handleConnection(socket: net.Socket, policy: NsClientServerPolicy, o: NsClientServerOptions): void {
  const peer = escapeLog(socket.remoteAddress ?? '?');
  socket.on('error', (err) => o.log.debug(`connection from ${peer}: ${err.message}`));
  const onData = (chunk: Buffer): void => {
    socket.off('data', onData);
    o.guard.served(socket);
    // Whatever else the peer sends is read and dropped, so that its leaving is seen (the query is cancelled).
    socket.on('data', () => undefined);
    socket.setTimeout(policy.timeoutMs, () => socket.destroy());
    if (chunk.length > NSCLIENT_MAX_REQUEST) {
      PEER_EVENTS.warn(
        o.log,
        'nsclient-oversize',
        peer,
        `refused request from ${peer}: ${chunk.length} bytes, more than ${NSCLIENT_MAX_REQUEST}`,
      );
      countRefusal('nsclient', 'request size');
      socket.end('ERROR: Request too long.');
      return;
    }
    const gone = peerGone(socket, peer);
    void o
      .answer(chunk.toString('utf8'), socket.remoteAddress ?? '', gone)
      .catch((err: unknown) => `ERROR: ${errorMessage(err)}`)
      .then((text) => {
        if (!socket.destroyed) socket.end(cutUtf8(text.replace(/[\r\n]+/g, ' '), NSCLIENT_MAX_ANSWER));
      })
      .catch((err: unknown) => {
        o.log.error(`answering ${peer} failed: ${escapeForLog(errorMessage(err))}`);
        socket.destroy();
      });
  };
  socket.on('data', onData);
}

/** Failed handshakes on the check_nt port, in words for the admin (listener/tls-peer.ts). */
const NSCLIENT_TLS_WORDS: TlsFailureWords = {
  'not-tls':
    'the client spoke plain text to this TLS port (check_nt has no TLS): set [/settings/NSClient/server] use ssl = false',
  'no-shared-cipher':
    "the client offered no cipher this server accepts (OpenSSL's default list with the certificate of [/settings/NSClient/server]): update the client or its cipher list",
  'old-protocol':
    'the client speaks a TLS version below what this server accepts (TLS 1.2 and later): update the client',
};
