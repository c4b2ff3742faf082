/**
 * What every TLS listener does with a peer after the handshake, and with a
 * handshake that failed, the same way for NRPE and the agent protocol:
 * - optional client certificates (verify mode peer, client-once): a peer
 *   without one is fine, one whose certificate does not verify is refused
 *   (logged, closed); the subject CN of a verified certificate names the peer;
 * - a failed handshake is a warning, unless the peer just went away (or the
 *   connection guard closed it, which logs that itself): then a debug line.
 */
import type { TLSSocket } from 'node:tls';
import { errorMessage } from '../../errors.js';
import { escapeLog } from '../../log-escape.js';
import type { Logger } from '../../log.js';

/** The peer's verified certificate CN (`{}` without one), or undefined when it is refused (the socket is destroyed). */
export function tlsPeer(socket: TLSSocket, requestCert: boolean | undefined, log: Logger): { certificate?: string } | undefined {
  if (requestCert && !socket.authorized && Object.keys(socket.getPeerCertificate() ?? {}).length > 0) {
    log.warning(`refused connection from ${escapeLog(socket.remoteAddress ?? '?')}: client certificate rejected (${String(socket.authorizationError)})`);
    socket.destroy();
    return undefined;
  }
  const cn: unknown = socket.authorized ? socket.getPeerCertificate()?.subject?.CN : undefined;
  return typeof cn === 'string' && cn !== '' ? { certificate: cn } : {};
}

/** The `tlsClientError` handler of a TLS listener. */
export function logTlsClientError(log: Logger): (err: NodeJS.ErrnoException, socket: TLSSocket) => void {
  return (err, socket) => {
    const gone = err.code === 'ECONNRESET' || /socket hang up/.test(err.message);
    (gone ? log.debug : log.warning)(`TLS handshake with ${escapeLog(socket.remoteAddress ?? '?')} failed: ${errorMessage(err)}`);
    socket.destroy();
  };
}
