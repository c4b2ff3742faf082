/**
 * check_http: one request per url= (http or https), its status, time, size,
 * an optional body match, and for https the server certificate's expiry.
 * The name is resolved by resolve.ts (no getaddrinfo); the request goes to
 * that address with the URL's host in the Host header and as TLS server name.
 * Redirects are not followed (a 3xx is a status like any other).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { TLSSocket } from 'node:tls';
import { performance } from 'node:perf_hooks';
import { linearPattern, type TextPattern } from '../../formats/linear-pattern.js';
import { ArgumentError, numberArgument, type CheckArguments } from '../arguments.js';
import type { CheckDefinition } from '../engine.js';
import type { Values } from '../expression/evaluate.js';
import { Deadline, TlsError, probeAll, since, timeoutArgument, timeoutOption, type NetContext } from './net-context.js';
import { resolveHost } from './resolve.js';
import { inRange } from '../../in-range.js';

const DEFAULT_TIMEOUT = 10_000;
const TLS_CODES = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO|HOSTNAME|ALTNAME|ERR_TLS/;

export interface HttpProbe {
  url: URL;
  method: string;
  headers: Record<string, string>;
  insecure: boolean;
  maxSize: number;
  match?: string;
  matchRegex?: TextPattern;
}

export function httpCheck(net: NetContext): CheckDefinition {
  return {
    name: 'check_http',
    title: 'HTTP(S) request',
    description:
      'Requests each url= over HTTP or HTTPS: status code, time, size, body match and the certificate expiry; times in milliseconds.',
    options: {
      url: { description: 'http:// or https:// URL to request; repeatable; required.', repeat: true },
      method: { description: 'Request method: GET, HEAD, POST, PUT, DELETE, OPTIONS.', default: 'GET' },
      header: { description: "Extra request header 'Name: value'; repeatable.", repeat: true },
      'user-agent': { description: 'User-Agent header.', default: 'config-agent check_http' },
      match: { description: 'Text the body must contain (else result is mismatch).' },
      'match-regex': { description: 'Regular expression the body must match (else result is mismatch).' },
      'max-size': { description: 'Most bytes of the body to read (the match sees only these).', default: '1048576' },
      timeout: timeoutOption(DEFAULT_TIMEOUT),
      insecure: {
        description: 'Accept a certificate that does not verify (its expiry is still reported).',
        flag: true,
      },
    },
    vars: {
      url: { kind: 'string', description: 'The URL as given.' },
      host: { kind: 'string', description: 'Host of the URL.' },
      port: { kind: 'number', description: 'Port connected to.' },
      address: { kind: 'string', description: 'Address connected to.' },
      result: {
        kind: 'string',
        description: "'ok', or what went wrong: timeout, refused, reset, unresolved, tls, mismatch, error.",
      },
      message: { kind: 'string', description: 'What happened, in words.' },
      code: { kind: 'number', description: 'HTTP status code (empty when there was no answer).' },
      time: { kind: 'ms', description: 'Milliseconds until the body was read.' },
      size: { kind: 'size', description: 'Bytes of body read.' },
      body_match: {
        kind: 'bool',
        description: 'Whether the body matched match= or match-regex= (empty when neither was given).',
      },
      cert_expiry: { kind: 'date', description: 'When the server certificate expires (https only).' },
      cert_days: {
        kind: 'number',
        description: 'Days until the server certificate expires, negative once expired (https only).',
      },
      cert_subject: { kind: 'string', description: 'Common name of the server certificate (https only).' },
    },
    defaults: {
      warning: 'time > 5000 or cert_days < 30',
      critical: "code < 200 or code >= 400 or result != 'ok' or cert_days < 7",
      topSyntax: '${status}: ${list}',
      detailSyntax: '${url}: ${message} in ${time}ms',
      emptySyntax: '%(status): No URLs to check',
      emptyState: 'unknown',
    },
    async collect(args, call) {
      const probes = httpProbes(args, net);
      const timeoutMs = timeoutArgument(args, DEFAULT_TIMEOUT, net);
      return probeAll(
        net,
        'check_http',
        probes,
        timeoutMs,
        call.signal,
        (p, d) => probeHttp(p, d, call.now),
        (p, f, d) => ({
          url: p.url.href,
          host: p.url.hostname,
          port: portOf(p.url),
          address: '',
          ...f,
          time: d.elapsed(),
          size: 0,
        }),
      );
    },
    perf: (item) => [
      { object: String(item.url), key: 'time', alias: `${item.url} time`, minimum: 0 },
      { object: String(item.url), key: 'size', alias: `${item.url} size`, minimum: 0 },
      ...(typeof item.cert_days === 'number'
        ? [{ object: String(item.url), key: 'cert_days', alias: `${item.url} cert_days` }]
        : []),
    ],
  };
}

function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** max-size=, at most `[/settings/net] max body size`. */
function bodySizeArgument(args: CheckArguments, net: NetContext): number {
  const size = numberArgument(args, 'max-size', Math.min(1024 * 1024, net.maxBodySize), { min: 0 });
  if (size > net.maxBodySize)
    throw new ArgumentError(`max-size=${size} is more than ${net.maxBodySize} bytes ([/settings/net] max body size)`);
  return size;
}

function httpProbes(args: CheckArguments, net: NetContext): HttpProbe[] {
  const urls = args
    .all('url')
    .map((u) => u.trim())
    .filter(Boolean);
  if (urls.length === 0) throw new ArgumentError('url= is required (http://host[:port]/path or https://...)');
  const method = (args.get('method') ?? 'GET').toUpperCase();
  if (!['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'].includes(method))
    throw new ArgumentError(`method=${method} is not one of GET, HEAD, POST, PUT, DELETE, OPTIONS`);
  const headers: Record<string, string> = {
    'user-agent': args.get('user-agent') ?? 'config-agent check_http',
    connection: 'close',
  };
  for (const h of args.all('header')) {
    const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*([^\r\n]*)$/.exec(h.trim());
    if (!m) throw new ArgumentError(`header=${h} is not 'Name: value'`);
    headers[inRange(m, 1).toLowerCase()] = inRange(m, 2);
  }
  const base: Omit<HttpProbe, 'url'> = {
    method,
    headers,
    insecure: args.flag('insecure'),
    maxSize: bodySizeArgument(args, net),
  };
  const match = args.get('match');
  if (match !== undefined) base.match = match;
  const re = args.get('match-regex');
  if (re !== undefined) {
    try {
      base.matchRegex = linearPattern(re);
    } catch (err) {
      throw new ArgumentError(`match-regex=${re} is not a regular expression: ${(err as Error).message}`);
    }
  }
  return urls.map((u) => {
    let url: URL;
    try {
      url = new URL(u);
    } catch {
      throw new ArgumentError(`url=${u} is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new ArgumentError(`url=${u}: only http:// and https:// are supported`);
    if (url.username || url.password)
      throw new ArgumentError(
        `url=${url.protocol}//${url.host}${url.pathname}: credentials in the URL are not supported`,
      );
    return { ...base, url };
  });
}

/** One request; resolves an item, rejects when the deadline passes or the connection fails. */
export async function probeHttp(p: HttpProbe, d: Deadline, now: number): Promise<Values> {
  const t0 = performance.now();
  const host = p.url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = portOf(p.url);
  const { address } = await d.run('resolving the name', (signal) => resolveHost(host, { signal, timeoutMs: d.ms }));
  const tls = p.url.protocol === 'https:';
  const req = (tls ? httpsRequest : httpRequest)({
    host: address,
    port,
    method: p.method,
    path: `${p.url.pathname}${p.url.search}`,
    headers: { ...p.headers, host: p.url.host },
    agent: false,
    ...(tls ? { servername: isIP(host) ? '' : host, rejectUnauthorized: !p.insecure } : {}),
  });
  try {
    d.step = tls ? 'connecting and negotiating TLS' : 'connecting';
    const res = await d.run(
      d.step,
      () =>
        new Promise<IncomingMessage>((resolve, reject) => {
          req.once('socket', (s) =>
            s.once(tls ? 'secureConnect' : 'connect', () => (d.step = 'waiting for the response')),
          );
          req.once('response', resolve);
          req.once('error', (err: NodeJS.ErrnoException) =>
            reject(
              tls && (TLS_CODES.test(err.code ?? '') || TLS_CODES.test(err.message))
                ? new TlsError(`TLS: ${err.message}`)
                : err,
            ),
          );
          req.end();
        }),
    );
    const cert = res.socket instanceof TLSSocket ? res.socket.getPeerCertificate() : undefined;
    const body = await d.run('reading the body', () => readBody(res, p.maxSize));
    const item: Record<string, string | number | boolean> = {
      url: p.url.href,
      host,
      port,
      address,
      code: res.statusCode ?? 0,
      time: since(t0),
      size: body.length,
      result: 'ok',
    };
    const words = [`HTTP ${res.statusCode} ${res.statusMessage ?? ''}`.trim(), `${body.length} bytes`];
    const text = body.toString('utf8');
    if (p.match !== undefined || p.matchRegex) {
      const ok = (p.match === undefined || text.includes(p.match)) && (!p.matchRegex || p.matchRegex.test(text));
      item.body_match = ok;
      if (!ok) item.result = 'mismatch';
      words.push(ok ? 'body matches' : 'body does not match');
    }
    if (cert?.valid_to) {
      const expiry = Date.parse(cert.valid_to) / 1000;
      item.cert_expiry = Math.round(expiry);
      item.cert_days = Math.floor((expiry - now) / 86400);
      item.cert_subject = String(cert.subject?.CN ?? '');
      words.push(
        item.cert_days < 0
          ? `certificate expired ${-item.cert_days} days ago`
          : `certificate expires in ${item.cert_days} days`,
      );
    }
    item.message = words.join(', ');
    return item;
  } finally {
    req.destroy();
  }
}

/** At most `max` bytes of the body; stops reading (and drops the connection) beyond that. */
function readBody(res: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (): void => {
      res.off('data', onData);
      resolve(Buffer.concat(chunks).subarray(0, max));
    };
    const onData = (c: Buffer): void => {
      chunks.push(c);
      size += c.length;
      if (size >= max) finish();
    };
    res.on('data', onData);
    res.once('end', finish);
    res.once('error', reject);
    res.once('aborted', () => reject(new Error('response aborted')));
  });
}
