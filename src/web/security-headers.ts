/**
 * Security headers on every answer of the web server: the UI, the API, the
 * NSClient++ legacy routes, errors (401/403/404/413/500) and the 400/408/431
 * that Node's HTTP parser would otherwise write bare.
 *
 * - `Content-Security-Policy`: scripts, styles, images, fonts and fetches
 *   from this origin only (`default-src 'self'`; the UI has no inline
 *   script or style), no `<base>`, forms post only here, and no framing
 *   by any page (`frame-ancestors 'none'`, against clickjacking).
 * - `X-Content-Type-Options: nosniff`: a browser uses the declared type.
 * - `Referrer-Policy: no-referrer`: links out of the UI do not carry the
 *   agent's URL.
 */
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

const ENTRIES = Object.entries(SECURITY_HEADERS);
const RAW = ENTRIES.map(([k, v]) => `${k}: ${v}\r\n`).join('');

/** Set the security headers on a response before anything writes it (writeHead merges them in). */
export function applySecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of ENTRIES) res.setHeader(name, value);
}

/**
 * A `clientError` listener for http(s).Server: answers what Node's default
 * would (431 for headers too large, 408 for a request timeout, else 400),
 * with the security headers, then closes; a socket that is gone or already
 * answered is only destroyed.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable || (socket as Duplex & { bytesWritten?: number }).bytesWritten) {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${RAW}Content-Length: 0\r\nConnection: close\r\n\r\n`);
}
