/**
 * A small HTTPS client for the web API tests: one request, the whole
 * answer, bounded by a timeout. Verifies the server against the given CA
 * (the agent's self-signed certificate) unless `insecure` is set.
 */
import { request as httpsRequest, Agent } from 'node:https';
import type { OutgoingHttpHeaders, IncomingHttpHeaders } from 'node:http';
import { connect as tlsConnect } from 'node:tls';
import { inRange } from '../../src/in-range.js';

export interface WebResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the test names the JSON shape it then asserts on
  json<T = unknown>(): T;
}

export interface WebRequestOptions {
  method?: string;
  user?: string;
  password?: string;
  headers?: OutgoingHttpHeaders;
  body?: string | Buffer;
  /** Connect from this local address (127.0.0.2 to test allowed hosts). */
  localAddress?: string;
  ca?: string;
  agent?: Agent;
  timeoutMs?: number;
}

export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

/**
 * One HTTPS request. A request sent on a kept-alive socket that the server
 * closed at that same moment (its keep-alive timeout) fails with "socket
 * hang up" before any answer: that request never reached the server, so it
 * is sent once more on a new connection, as Node's docs advise
 * (request.reusedSocket).
 */
export async function webRequest(url: string, opts: WebRequestOptions = {}): Promise<WebResponse> {
  try {
    return await requestOnce(url, opts);
  } catch (err) {
    if ((err as { reusedSocket?: boolean }).reusedSocket && (err as NodeJS.ErrnoException).code === 'ECONNRESET')
      return requestOnce(url, opts);
    throw err;
  }
}

function requestOnce(url: string, opts: WebRequestOptions): Promise<WebResponse> {
  return new Promise((resolve, reject) => {
    const headers: OutgoingHttpHeaders = { ...opts.headers };
    if (opts.user !== undefined) headers.authorization = basic(opts.user, opts.password ?? '');
    if (opts.body !== undefined) headers['content-length'] = Buffer.byteLength(opts.body);
    const req = httpsRequest(
      url,
      {
        method: opts.method ?? 'GET',
        headers,
        ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
        ...(opts.ca ? { ca: opts.ca } : { rejectUnauthorized: false }),
        ...(opts.agent ? { agent: opts.agent } : {}),
        timeout: opts.timeoutMs ?? 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: <T>() => JSON.parse(body) as T }); // eslint-disable-line @typescript-eslint/no-unnecessary-type-parameters -- as Answer.json
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request to ${url} timed out`)));
    req.on('error', (err) => reject(Object.assign(err, { reusedSocket: req.reusedSocket })));
    req.end(opts.body);
  });
}

/** The entries of a Link header by rel. */
export function parseLinks(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(',')) {
    const m = /<([^>]*)>\s*;\s*rel="([^"]+)"/.exec(part);
    if (m) out[inRange(m, 2)] = inRange(m, 1);
  }
  return out;
}

/**
 * Sends `request` as latin1 bytes over TLS to 127.0.0.1:`port`, with no
 * client library in between (no URL encoding, no header checks), and
 * resolves with what came back when the server closes; with `abort`, the
 * client closes 200 ms after sending (a body cut short). 5 s cap.
 */
export function rawHttps(port: number, request: string, abort = false): Promise<string> {
  return new Promise((resolve) => {
    const got: Buffer[] = [];
    const s = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      s.write(Buffer.from(request, 'latin1'), () => {
        if (abort) setTimeout(() => s.destroy(), 200);
      });
    });
    const timer = setTimeout(() => s.destroy(), 5000);
    s.on('data', (d: Buffer) => got.push(d));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(got).toString('latin1'));
    });
  });
}
