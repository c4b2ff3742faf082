/**
 * What every TLS listener does with a peer after the handshake, and with a
 * handshake that failed, the same way for NRPE and the agent protocol:
 * - optional client certificates (verify mode peer, client-once): a peer
 *   without one is fine, one whose certificate does not verify is refused
 *   (logged, closed); the subject CN of a verified certificate names the peer;
 * - a failed handshake is one warning line in words, saying what the client
 *   did and what to set (each server words it for its own settings: a plain
 *   packet on a TLS port, no cipher in common, a protocol version too old),
 *   with OpenSSL's own text at debug; at most one line per kind every 10 s
 *   (the rest counted into the next), so a scanner cannot flood the log;
 *   a peer that just went away (or that the connection guard closed, which
 *   logs that itself) gets a debug line only.
 */
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { errorMessage } from '../../errors.js';
import { classifyServerTlsError, type ServerTlsFailure } from '../tls-errors.js';
import { escapeLog } from '../../log-escape.js';
import type { Logger } from '../../log.js';
import { PEER_EVENTS } from '../../log-throttle.js';

/** The peer's verified certificate CN (`{}` without one), or undefined when it is refused (the socket is destroyed). */
export function tlsPeer(
  socket: TLSSocket,
  requestCert: boolean | undefined,
  log: Logger,
): { certificate?: string } | undefined {
  if (requestCert && !socket.authorized && Object.keys(peerCertificate(socket) ?? {}).length > 0) {
    const peer = socket.remoteAddress ?? '?';
    PEER_EVENTS.warn(
      log,
      'certificate rejected',
      peer,
      `refused connection from ${escapeLog(peer)}: client certificate rejected (${String(socket.authorizationError)})`,
    );
    socket.destroy();
    return undefined;
  }
  const cn: unknown = socket.authorized ? peerCertificate(socket)?.subject?.CN : undefined;
  return typeof cn === 'string' && cn !== '' ? { certificate: cn } : {};
}

/** The peer's certificate: typed PeerCertificate, but {} when the peer sent none and null once the socket is destroyed (node's documentation). */
function peerCertificate(socket: TLSSocket): Partial<PeerCertificate> | null {
  return socket.getPeerCertificate();
}

/** What a server says to the admin for each kind of failed handshake (the `other` kind keeps OpenSSL's text). */
export type TlsFailureWords = Record<Exclude<ServerTlsFailure, 'other'>, string>;

/** Per kind of failure, at most one line in this long; the lines left out are counted into the next. */
const QUIET_MS = 10_000;

/**
 * The `tlsClientError` handler of a TLS listener. `level`: of the lines in
 * words (warning; the web server says info, since browsers end handshakes
 * with self-signed certificates as a matter of course); other failures say
 * OpenSSL's text at that level too, or at debug with `otherAtDebug`.
 */
export function logTlsClientError(
  log: Logger,
  words: TlsFailureWords,
  options: { level?: 'warning' | 'info'; otherAtDebug?: boolean } = {},
): (err: NodeJS.ErrnoException, socket: TLSSocket) => void {
  const level = options.level ?? 'warning';
  const last = new Map<ServerTlsFailure, { at: number; quiet: number }>();
  return (err, socket) => {
    const peer = escapeLog(socket.remoteAddress ?? '?');
    const raw = `TLS handshake with ${peer} failed: ${errorMessage(err)}`;
    socket.destroy();
    const kind = classifyServerTlsError(err);
    if (
      err.code === 'ECONNRESET' ||
      /socket hang up/.test(err.message) ||
      (kind === 'other' && options.otherAtDebug === true)
    ) {
      log.debug(raw);
      return;
    }
    log.debug(raw);
    const now = performance.now();
    const seen = last.get(kind);
    if (seen !== undefined && now - seen.at < QUIET_MS) {
      seen.quiet++;
      return;
    }
    const more =
      seen !== undefined && seen.quiet > 0
        ? ` (and ${seen.quiet} more like it in the ${Math.round((now - seen.at) / 1000)} s before)`
        : '';
    last.set(kind, { at: now, quiet: 0 });
    log[level](`${kind === 'other' ? raw : `TLS handshake with ${peer} failed: ${words[kind]}`}${more}`);
  };
}
