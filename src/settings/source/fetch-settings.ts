/**
 * One conditional GET of a pulled settings file, with node:http(s) (no
 * client library): `If-None-Match` / `If-Modified-Since` from the last good
 * pull, so an unchanged file costs a 304 and no body; a time limit for the
 * whole request (headers and body); a size cap checked against
 * Content-Length before reading and against the bytes while reading; a
 * body shorter than its Content-Length (the server went away mid-body) is
 * a failure, never a shorter file; a content type that is not text (an
 * HTML error page) is refused; up to MAX_REDIRECTS redirects, never from
 * https to http. Every failure throws an Error whose message says why in
 * words (the caller wraps it in AGENT_ERR_SOURCE_PULL).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

export const MAX_REDIRECTS = 5;

export interface FetchOptions {
  timeoutMs: number;
  maxBytes: number;
  /** PEM text of the CAs to trust (undefined: the system's). */
  ca?: string | undefined;
  insecure: boolean;
  etag?: string | undefined;
  lastModified?: string | undefined;
}

export type FetchResult =
  | { changed: false; status: 304 }
  | {
      changed: true;
      body: Buffer;
      /** The entity tag as sent: the revision's name. */
      etag: string | undefined;
      lastModified: string | undefined;
      /** The validators that may be sent back in the next conditional request (strongValidators). */
      validators: { etag: string | undefined; lastModified: string | undefined };
      url: string;
    };

/** Content types a settings file may come with: text (text/plain, text/x-ini…) except HTML, or bytes. */
export function acceptableType(type: string | undefined): boolean {
  if (type === undefined || type === '') return true;
  const base = (type.split(';')[0] ?? '').trim().toLowerCase();
  if (base === 'text/html' || base === 'application/xhtml+xml') return false;
  return base.startsWith('text/') || base === 'application/octet-stream' || base === 'application/x-ini';
}

export async function fetchSettings(url: string, options: FetchOptions): Promise<FetchResult> {
  const deadline = Date.now() + options.timeoutMs;
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const r = await fetchOnce(current, options, deadline);
    if (!('location' in r)) return r;
    const next = new URL(r.location, current);
    if (new URL(current).protocol === 'https:' && next.protocol !== 'https:')
      throw new Error(`redirected from https to ${next.protocol.replace(':', '')} (${next.href}); refused`);
    current = next.href;
  }
  throw new Error(`more than ${MAX_REDIRECTS} redirects`);
}

function fetchOnce(url: string, options: FetchOptions, deadline: number): Promise<FetchResult | { location: string }> {
  const target = new URL(url);
  if (target.protocol !== 'https:' && target.protocol !== 'http:')
    return Promise.reject(new Error(`unsupported URL scheme ${target.protocol}`));
  const headers: Record<string, string> = {
    accept: 'text/plain, */*;q=0.5',
    'user-agent': 'config-agent settings pull',
  };
  if (options.etag) headers['if-none-match'] = options.etag;
  if (options.lastModified) headers['if-modified-since'] = options.lastModified;
  const remaining = Math.max(1, deadline - Date.now());
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (why: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(new Error(why));
    };
    const done = (r: FetchResult | { location: string }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const tls =
      target.protocol === 'https:'
        ? { rejectUnauthorized: !options.insecure, ...(options.ca !== undefined ? { ca: options.ca } : {}) }
        : {};
    const req = (target.protocol === 'https:' ? httpsRequest : httpRequest)(
      target,
      { method: 'GET', headers, ...tls },
      (res) => onResponse(res),
    );
    const timer = setTimeout(() => fail(`no complete answer within ${options.timeoutMs} ms`), remaining);
    req.on('error', (err) => fail(err.message));
    req.end();

    const onResponse = (res: IncomingMessage): void => {
      const status = res.statusCode ?? 0;
      if (status === 304) {
        res.resume();
        return done({ changed: false, status: 304 });
      }
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        return done({ location: res.headers.location });
      }
      if (status !== 200) {
        res.resume();
        return fail(`HTTP ${status} ${res.statusMessage ?? ''}`.trim());
      }
      const type = res.headers['content-type'];
      if (!acceptableType(type)) {
        res.destroy();
        return fail(`content type ${type ?? ''} is not a settings file (text/plain expected)`);
      }
      const declared = res.headers['content-length'] === undefined ? undefined : Number(res.headers['content-length']);
      if (declared !== undefined && declared > options.maxBytes) {
        res.destroy();
        return fail(`the body is ${declared} bytes, more than max size ${options.maxBytes}`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) return fail(`the body is more than max size ${options.maxBytes} bytes`);
        chunks.push(chunk);
      });
      res.on('error', (err) => fail(`the body was cut off after ${size} bytes (${err.message})`));
      res.on('aborted', () => fail(`the body was cut off after ${size} bytes`));
      res.on('end', () => {
        if (declared !== undefined && size !== declared)
          return fail(`the body was cut off after ${size} of ${declared} bytes`);
        if (!res.complete) return fail(`the body was cut off after ${size} bytes`);
        const { etag, 'last-modified': lastModified } = res.headers;
        const validators = strongValidators(res.headers);
        done({ changed: true, body: Buffer.concat(chunks, size), etag, lastModified, validators, url });
      });
    };
  });
}

/**
 * The validators of an answer that may be sent back in a conditional request, none when RFC 9110
 * calls them weak: a `W/` entity tag; and a Last-Modified that is not at least one second earlier
 * than the answer's Date (8.8.2.2), which also makes an entity tag derived from the file's time and
 * size unsafe (nginx's: a same-size edit within that second keeps it). Without them the next request
 * is unconditional and the body's SHA-256 tells a change (apply-pull.ts).
 */
export function strongValidators(headers: {
  etag?: string | undefined;
  'last-modified'?: string | undefined;
  date?: string | undefined;
}): { etag: string | undefined; lastModified: string | undefined } {
  const modified = Date.parse(headers['last-modified'] ?? '');
  const date = Date.parse(headers.date ?? '');
  const settled = !Number.isNaN(modified) && !Number.isNaN(date) && date - modified >= 1000;
  if (!settled && headers['last-modified'] !== undefined) return { etag: undefined, lastModified: undefined };
  const etag = headers.etag?.startsWith('W/') === true ? undefined : headers.etag;
  return { etag, lastModified: settled ? headers['last-modified'] : undefined };
}
