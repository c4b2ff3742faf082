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
 *
 * Cost per answer: the WEBServer's listeners create their responses as
 * `SecureResponse`, whose `writeHead` adds these headers to whatever the
 * answer sets; the JSON and text answers of respond.ts hand it one
 * precomputed header list that already holds them (`writeSecureHead`), so
 * the common answer is one `writeHead` with no `setHeader` before it (Node
 * then skips merging into its header map). A plain ServerResponse (a test's
 * own server) gets them from `applySecurityHeaders` before routing.
 */
import { ServerResponse, STATUS_CODES, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

const ENTRIES = Object.entries(SECURITY_HEADERS);
const RAW = ENTRIES.map(([k, v]) => `${k}: ${v}\r\n`).join('');

/** The security headers as a flat `[name, value, …]` list, to start a header list given to writeHead. */
export const SECURITY_HEADER_LIST: readonly string[] = ENTRIES.flat();

/** Set the security headers on a response before anything writes it (writeHead merges them in). */
export function applySecurityHeaders(res: ServerResponse): void {
  if (res instanceof SecureResponse) return;
  for (const [name, value] of ENTRIES) res.setHeader(name, value);
}

/**
 * The response class of the web server's listeners (`ServerResponse`
 * option of http(s).createServer): every head it writes, the implicit one
 * of a bare `end()` included, carries the security headers; a header the
 * answer sets itself keeps the answer's value.
 */
export class SecureResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  override writeHead(
    statusCode: number,
    reasonOrHeaders?: string | OutgoingHttpHeaders | readonly unknown[],
    headers?: OutgoingHttpHeaders | readonly unknown[],
  ): this {
    for (const [name, value] of ENTRIES)
      if (!this.hasHeader(name) && !givenIn(reasonOrHeaders, name) && !givenIn(headers, name))
        this.setHeader(name, value);
    // @ts-expect-error -- Node's writeHead takes these forms; its typings spell them as overloads.
    return super.writeHead(statusCode, reasonOrHeaders, headers);
  }
}

/**
 * Write the head from a flat header list that starts with
 * SECURITY_HEADER_LIST (what respond.ts builds): on a SecureResponse
 * nothing is added or merged.
 */
export function writeSecureHead(res: ServerResponse, status: number, list: readonly string[]): void {
  // Node's own writeHead: the list needs nothing added.
  if (res instanceof SecureResponse) ServerResponse.prototype.writeHead.call(res, status, list as string[]);
  else res.writeHead(status, list as string[]);
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
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${RAW}Content-Length: 0\r\nConnection: close\r\n\r\n`,
  );
}

// ---------------------------------------------------------------- helpers

/** True when a header object or flat list given to writeHead names `name` (any case). */
function givenIn(headers: unknown, name: string): boolean {
  if (headers === undefined || headers === null || typeof headers !== 'object') return false;
  const lower = name.toLowerCase();
  if (Array.isArray(headers)) {
    for (let i = 0; i < headers.length; i += 2) if (String(headers[i]).toLowerCase() === lower) return true;
    return false;
  }
  return Object.keys(headers).some((k) => k.toLowerCase() === lower);
}
