/**
 * Response helpers shared by the routes: compact JSON with a correct
 * Content-Length, plain text, and the absolute base URL of the request
 * (scheme from the socket, host from the Host header) for `_url` links.
 */
import type { ServerResponse } from 'node:http';
import type { Request } from 'polka';
import { linkBase, type PublicHosts } from './public-host.js';
import { SECURITY_HEADER_LIST, writeSecureHead } from './security-headers.js';

/** The principal a request was authenticated as, set by the access layer. */
export interface Principal {
  user: string;
  privileges: readonly string[];
}

/** What our middleware adds to Polka's request. */
export interface WebRequest extends Request {
  principal?: Principal;
  /**
   * Milliseconds of the credential check this request skipped (its login was
   * a remembered success): a refusal of the route waits as long, so a right
   * password without the route's privilege costs what a wrong one costs.
   */
  uncheckedCost?: number;
  /** Route pattern for metrics (`/api/v1/modules/:module`), or `static` / `unmatched`. */
  routeLabel?: string;
  /** The `public hosts` of the settings in force, set by the app for baseUrl. */
  publicHosts?: PublicHosts;
}

/**
 * Answer `value` as compact JSON: one head (security headers, type,
 * length, no-store, then `headers`) and one `end` with the body, so header
 * and body leave in one write.
 */
export function sendJson(res: ServerResponse, status: number, value: unknown, headers?: Record<string, string>): void {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  writeSecureHead(res, status, headList(JSON_TYPE, body.length, headers));
  res.end(body);
}

export function sendText(res: ServerResponse, status: number, text: string, headers?: Record<string, string>): void {
  const body = Buffer.from(text, 'utf8');
  writeSecureHead(res, status, headList(TEXT_TYPE, body.length, headers));
  res.end(body);
}

/**
 * `https://host:port` of this request for `_url` links: the Host header only
 * when the server answers to it (public-host.ts), else the configured public
 * host or the local address of the connection.
 */
export function baseUrl(req: Request): string {
  return linkBase(req, (req as WebRequest).publicHosts ?? NO_PUBLIC_HOSTS);
}

const NO_PUBLIC_HOSTS: PublicHosts = { entries: [] };

/** Percent-encode one path segment for a link. */
export function seg(value: string): string {
  return encodeURIComponent(value);
}

// ---------------------------------------------------------------- helpers

const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';

/** The path parameter `name` of the route that matched (`/modules/:module`): there for every route that declares it. */
export function routeParam(req: WebRequest, name: string): string {
  const v = req.params[name];
  if (v === undefined) throw new Error(`the route has no :${name} parameter`);
  return v;
}

/** The head of an answer as one flat list: security headers, Content-Type, Content-Length, Cache-Control, then `extra` (which replaces a header of the same name). */
function headList(type: string, length: number, extra: Record<string, string> | undefined): string[] {
  const list = [
    ...SECURITY_HEADER_LIST,
    'Content-Type',
    type,
    'Content-Length',
    String(length),
    'Cache-Control',
    'no-store',
  ];
  if (extra !== undefined) {
    for (const [name, value] of Object.entries(extra)) {
      const lower = name.toLowerCase();
      let i = 0;
      while (i < list.length && list[i]?.toLowerCase() !== lower) i += 2;
      list[i] = name;
      list[i + 1] = value;
    }
  }
  return list;
}
