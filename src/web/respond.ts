/**
 * Response helpers shared by the routes: compact JSON with a correct
 * Content-Length, plain text, and the absolute base URL of the request
 * (scheme from the socket, host from the Host header) for `_url` links.
 */
import type { ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Request } from 'polka';

/** The principal a request was authenticated as, set by the access layer. */
export interface Principal {
  user: string;
  privileges: readonly string[];
}

/** What our middleware adds to Polka's request. */
export interface WebRequest extends Request {
  principal?: Principal;
  /** Route pattern for metrics (`/api/v1/modules/:module`), or `static` / `unmatched`. */
  routeLabel?: string;
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(body.length),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(body);
}

export function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  const body = Buffer.from(text, 'utf8');
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(body.length),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(body);
}

/**
 * `https://host:port` of this request. The Host header is used when it is a
 * plain host[:port] (no path, no spaces); otherwise the local address is.
 */
export function baseUrl(req: Request): string {
  const socket = req.socket as TLSSocket;
  const scheme = socket.encrypted ? 'https' : 'http';
  const host = req.headers.host;
  if (host !== undefined && /^[A-Za-z0-9.\-_]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host)) {
    return `${scheme}://${host}`;
  }
  const addr = socket.localAddress ?? '127.0.0.1';
  const shown = addr.includes(':') ? `[${addr}]` : addr;
  return `${scheme}://${shown}:${socket.localPort ?? ''}`;
}

/** Percent-encode one path segment for a link. */
export function seg(value: string): string {
  return encodeURIComponent(value);
}
