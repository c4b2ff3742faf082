/**
 * check_tcp: connect to host:port (optionally over TLS), optionally send a
 * text and expect a reply matching a regular expression. Arguments are
 * NSClient++'s (`host= port= timeout=` in ms), not the monitoring-plugins
 * flags SNClient+ takes; thresholds are the engine's (warn `time > 1000`,
 * crit `time > 5000 or result != 'ok'`).
 */
import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { performance } from 'node:perf_hooks';
import { linearPattern, type TextPattern } from '../../formats/linear-pattern.js';
import { ArgumentError, numberArgument } from '../arguments.js';
import type { CheckDefinition } from '../engine.js';
import type { Values } from '../expression/evaluate.js';
import {
  Deadline,
  HOST_OPTION,
  TlsError,
  hostArguments,
  probeAll,
  since,
  timeoutArgument,
  timeoutOption,
  type NetContext,
} from './net-context.js';
import { resolveHost, type Family } from './resolve.js';

const DEFAULT_TIMEOUT = 5000;

export interface TcpProbe {
  host: string;
  port: number;
  tls: boolean;
  insecure: boolean;
  send?: string;
  expect?: TextPattern;
  maxBytes: number;
  family: Family;
}

export function tcpCheck(net: NetContext): CheckDefinition {
  return {
    name: 'check_tcp',
    title: 'TCP port',
    description:
      'Connects to host:port (optionally TLS), optionally sends a text and matches the reply; times in milliseconds.',
    options: {
      host: HOST_OPTION,
      hosts: HOST_OPTION,
      port: { description: 'TCP port (1-65535); required.' },
      timeout: timeoutOption(DEFAULT_TIMEOUT),
      send: { description: 'Text to send after connecting (\\r \\n \\t \\\\ are decoded).' },
      expect: {
        description:
          'Regular expression the reply must match (read until it matches, max-bytes arrive or the peer closes).',
      },
      'max-bytes': { description: 'Most bytes of the reply to read.', default: '4096' },
      tls: { description: 'Speak TLS after connecting (the certificate is verified unless insecure).', flag: true },
      insecure: { description: 'With tls: accept any certificate.', flag: true },
      ipv4: { description: 'Use IPv4 only.', flag: true },
      ipv6: { description: 'Use IPv6 only.', flag: true },
    },
    vars: {
      host: { kind: 'string', description: 'The host as given.' },
      port: { kind: 'number', description: 'The port.' },
      address: { kind: 'string', description: 'The address connected to (empty when the name did not resolve).' },
      result: {
        kind: 'string',
        description:
          "'ok', or what went wrong: timeout, refused, reset, unreachable, unresolved, mismatch, tls, error.",
      },
      message: { kind: 'string', description: 'What happened, in words.' },
      time: { kind: 'ms', description: 'Milliseconds for the whole probe (time > 1000, time > 2s).' },
      connect_time: { kind: 'ms', description: 'Milliseconds until the connection (and TLS handshake) stood.' },
      response: { kind: 'string', description: 'The first line of the reply (at most 200 characters).' },
    },
    defaults: {
      warning: 'time > 1000',
      critical: "time > 5000 or result != 'ok'",
      topSyntax: '${status}: ${list}',
      detailSyntax: '${host}:${port} ${message} in ${time}ms',
      emptySyntax: '%(status): No hosts to check',
      emptyState: 'unknown',
    },
    async collect(args, call) {
      const port = numberArgument(args, 'port', NaN, { min: 1, max: 65535 });
      if (!Number.isInteger(port)) throw new ArgumentError('port= is required (1-65535)');
      const hosts = hostArguments(args);
      const timeoutMs = timeoutArgument(args, DEFAULT_TIMEOUT, net);
      const expectText = args.get('expect');
      let expect: TextPattern | undefined;
      try {
        if (expectText !== undefined) expect = linearPattern(expectText);
      } catch (err) {
        throw new ArgumentError(`expect=${expectText} is not a regular expression: ${(err as Error).message}`);
      }
      const send = args.get('send');
      const base: Omit<TcpProbe, 'host'> = {
        port,
        tls: args.flag('tls'),
        insecure: args.flag('insecure'),
        maxBytes: numberArgument(args, 'max-bytes', 4096, { min: 1, max: 1024 * 1024 }),
        family: args.flag('ipv4') ? 4 : args.flag('ipv6') ? 6 : 0,
      };
      if (send !== undefined) base.send = unescape(send);
      if (expect) base.expect = expect;
      return probeAll(
        net,
        'check_tcp',
        hosts,
        timeoutMs,
        call.signal,
        (host, d) => probeTcp({ ...base, host }, d),
        (host, f, d) => ({ host, port, address: '', ...f, time: d.elapsed(), response: '' }),
      );
    },
    perf: (item) => [
      { object: `${item.host}:${item.port}`, key: 'time', alias: `${item.host}:${item.port} time`, minimum: 0 },
    ],
  };
}

/** Decode \r \n \t \\ in a send text. */
export function unescape(text: string): string {
  return text.replace(/\\([rnt\\])/g, (_, c: string) => ({ r: '\r', n: '\n', t: '\t', '\\': '\\' })[c] as string);
}

/** One probe; resolves an item, rejects only when the deadline passes or the socket fails. */
export async function probeTcp(p: TcpProbe, d: Deadline): Promise<Values> {
  const t0 = performance.now();
  const { address } = await d.run('resolving the name', (signal) =>
    resolveHost(p.host, { family: p.family, signal, timeoutMs: d.ms }),
  );
  let socket: Socket | undefined;
  try {
    socket = await d.run(p.tls ? 'connecting and negotiating TLS' : 'connecting', (signal) =>
      openSocket(p, address, signal),
    );
    const connectTime = since(t0);
    let response = '';
    let result = 'ok';
    let message = 'connected';
    if (p.send !== undefined || p.expect) {
      const s = socket;
      if (p.send !== undefined)
        await d.run(
          'sending',
          () =>
            new Promise<void>((resolve, reject) => s.write(p.send as string, (err) => (err ? reject(err) : resolve()))),
        );
      const reply = await d.run('reading the reply', () => readReply(s, p.expect, p.maxBytes));
      response = (reply.split(/\r?\n/)[0] ?? '').slice(0, 200);
      if (p.expect && !p.expect.test(reply)) {
        result = 'mismatch';
        message = `reply does not match ${p.expect.source}: ${JSON.stringify(response)}`;
      } else message = p.expect ? `reply matches ${p.expect.source}` : 'connected, reply read';
    }
    return {
      host: p.host,
      port: p.port,
      address,
      result,
      message,
      time: since(t0),
      connect_time: connectTime,
      response,
    };
  } finally {
    socket?.destroy();
  }
}

const SOCKET_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'EADDRNOTAVAIL',
]);

/** Connect (and handshake); the socket is destroyed if the deadline fires first. */
export function openSocket(
  p: Pick<TcpProbe, 'host' | 'port' | 'tls' | 'insecure'>,
  address: string,
  signal: AbortSignal,
  ca?: string,
): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const sock = p.tls
      ? tlsConnect(
          {
            host: address,
            port: p.port,
            servername: isIP(p.host) ? '' : p.host,
            rejectUnauthorized: !p.insecure,
            ...(ca ? { ca } : {}),
          },
          () => {
            signal.removeEventListener('abort', stop);
            resolve(sock);
          },
        )
      : tcpConnect({ host: address, port: p.port }, () => {
          signal.removeEventListener('abort', stop);
          resolve(sock);
        });
    const stop = (): void => {
      sock.destroy();
    };
    signal.addEventListener('abort', stop, { once: true });
    sock.once('error', (err: NodeJS.ErrnoException) => {
      sock.destroy();
      signal.removeEventListener('abort', stop);
      reject(p.tls && !SOCKET_ERRORS.has(err.code ?? '') ? new TlsError(`TLS: ${err.message}`) : err);
    });
    // A probe that is abandoned (deadline) must not leave the socket open.
    sock.on('close', () => reject(new Error('connection closed')));
  });
}

function readReply(sock: Socket, expect: TextPattern | undefined, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      sock.off('data', onData);
      resolve(Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8'));
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= maxBytes || !expect || expect.test(Buffer.concat(chunks).toString('utf8'))) done();
    };
    sock.on('data', onData);
    sock.once('end', done);
    sock.once('error', reject);
  });
}
