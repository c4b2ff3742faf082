/**
 * The NRPE client: one request, one answer, one connection per exchange.
 *
 * `nrpeRequest` sends the request text in one write (the NRPE daemon over
 * TLS needs the whole packet in one record), reads the answer with the
 * incremental reader (v2 type-3 continuation packets are joined), and
 * returns the status and text. With `version: 'auto'` it sends v4 first and,
 * when reading the answer fails for any reason, sends v2 once on a new
 * connection, like check_nrpe 4.x. Connection failures are retried `retry`
 * times, spaced by the clients' backoff (connect-retry.ts). `timeoutMs` bounds the whole call, retries and fallback included.
 * Every failure rejects with an AgentError whose message says what happened.
 */
import * as net from 'node:net';
import * as tls from 'node:tls';
import { AgentError, type ErrorCode } from '../../errors.js';
import { PacketReader } from './packet-reader.js';
import { anonymousOnlyAdvice, probeAnonymous } from './anonymous-probe.js';
import { probeReset } from './reset-probe.js';
import { encodePacket, QUERY_PACKET, RESPONSE_MORE_PACKET, type PacketVersion } from './packet.js';
import { isTlsError } from '../tls-errors.js';
import { describeSocketError, tlsHint, type TlsHintWords } from '../client-errors.js';
import { withRetries } from '../../retry-policy.js';
import { CONNECT_RETRY } from '../connect-retry.js';

export interface NrpeClientOptions {
  host: string;
  port: number;
  /** Bound on the whole call, in milliseconds. */
  timeoutMs: number;
  /** Extra attempts after a failure to connect. */
  retry: number;
  /** TLS options (see tls.ts); undefined means plain TCP. */
  tls?: tls.ConnectionOptions | undefined;
  /** Packet version; 'auto' is v4 with one fallback to v2. */
  version: 'auto' | PacketVersion;
  /** v2 payload length (must match the server). */
  payloadLength: number;
  /** Largest v3/v4 answer buffer accepted; default 1 MiB. */
  maxBufferLength?: number;
  signal?: AbortSignal | undefined;
}

export interface NrpeAnswer {
  /** Result code as sent (0-3 for well-behaved servers). */
  result: number;
  text: string;
  /** Packet version of the exchange that answered. */
  version: PacketVersion;
}

type Stage = 'connect' | 'tls' | 'read' | 'timeout';

class ExchangeFailure extends AgentError {
  constructor(
    readonly stage: Stage,
    code: ErrorCode,
    args: unknown[],
  ) {
    super(code, args);
  }
}

/** Sends `request` (`command!arg!arg`) and resolves with the answer; see the file comment. */
export async function nrpeRequest(options: NrpeClientOptions, request: string): Promise<NrpeAnswer> {
  const deadline = performance.now() + options.timeoutMs;
  const first: PacketVersion = options.version === 'auto' ? 4 : options.version;
  let attempts = 0;
  // A failure of the v2 fallback ends the call: it is neither retried nor counted as a connect failure.
  let fellBack = false;
  const isConnectFailure = (err: unknown): boolean =>
    !fellBack && err instanceof ExchangeFailure && err.stage === 'connect';
  try {
    return await withRetries(
      async () => {
        attempts++;
        try {
          return await exchange(options, first, request, deadline);
        } catch (err) {
          if (!(err instanceof ExchangeFailure) || err.stage !== 'read' || options.version !== 'auto') throw err;
          fellBack = true;
          return await exchange(options, 2, request, deadline).catch((second: unknown) => {
            if (second instanceof ExchangeFailure && second.message !== err.message) {
              // Report both: the v4 problem is often the telling one.
              throw new AgentError('AGENT_ERR_NRPE_FALLBACK', [second.message, err.message]);
            }
            throw second;
          });
        }
      },
      { retries: options.retry, policy: CONNECT_RETRY, retryable: isConnectFailure, deadline, signal: options.signal },
    );
  } catch (err) {
    if (isConnectFailure(err) && attempts > 1) {
      throw new AgentError('AGENT_ERR_NRPE_CONNECT', [
        where(options),
        `${lastCause((err as Error).message)} (${attempts} attempts)`,
      ]);
    }
    throw err;
  }
}

// long function: one exchange is one state machine over one socket (connect, TLS, write, read, deadline) whose handlers share that state
/** One connection: connect, send one packet, read one (possibly multi-packet) answer. */
function exchange(
  o: NrpeClientOptions,
  version: PacketVersion,
  request: string,
  deadline: number,
): Promise<NrpeAnswer> {
  const peer = where(o);
  const packet = encodePacket({ version, type: QUERY_PACKET, text: request, payloadLength: o.payloadLength });
  // long function: the exchange's socket handlers share its state (see above)
  return new Promise<NrpeAnswer>((resolve, reject) => {
    const reader = new PacketReader({ payloadLength: o.payloadLength, maxBufferLength: o.maxBufferLength ?? 1 << 20 });
    const parts: Buffer[] = [];
    let result = 0;
    let connected = false;
    let settled = false;
    let received = 0;
    let probing = false;
    const socket: net.Socket = o.tls
      ? tls.connect({ ...o.tls, host: o.host, port: o.port, servername: net.isIP(o.host) ? '' : o.host })
      : net.connect({ host: o.host, port: o.port });
    // One small packet each way: Nagle's algorithm would only add delay.
    socket.setNoDelay(true);
    const finish = (err: ExchangeFailure | undefined, answer?: NrpeAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      if (err) reject(err);
      else resolve(answer!);
    };
    const fail = (stage: Stage, code: ErrorCode, ...args: unknown[]): void =>
      finish(new ExchangeFailure(stage, code, args));
    const timer = setTimeout(
      () => fail('timeout', 'AGENT_ERR_NRPE_TIMEOUT', peer, (o.timeoutMs / 1000).toString()),
      Math.max(0, deadline - performance.now()),
    );
    const onAbort = (): void => fail('timeout', 'AGENT_ERR_NRPE_CLOSED', 'the caller', 'before the answer (aborted)');
    o.signal?.addEventListener('abort', onAbort, { once: true });
    if (o.signal?.aborted) onAbort();

    socket.once(o.tls ? 'secureConnect' : 'connect', () => {
      connected = true;
      socket.write(packet);
    });
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received === chunk.length && (chunk[0] === 0x15 || chunk[0] === 0x16) && !o.tls) {
        return fail(
          'read',
          'AGENT_ERR_NRPE_PACKET',
          `${peer} answered with TLS (the server uses SSL; leave out --no-ssl)`,
        );
      }
      reader.push(chunk);
      try {
        for (let p = reader.next(); p !== undefined; p = reader.next()) {
          if (p.version !== version) {
            return fail(
              'read',
              'AGENT_ERR_NRPE_PACKET',
              `${peer} answered a version ${version} query with version ${p.version}`,
            );
          }
          if (p.type === QUERY_PACKET)
            return fail('read', 'AGENT_ERR_NRPE_PACKET', `${peer} sent a query instead of a response`);
          if (parts.length === 0) result = p.result;
          parts.push(p.text);
          if (p.type !== RESPONSE_MORE_PACKET || version !== 2) {
            return finish(undefined, { result, text: Buffer.concat(parts).toString('utf8'), version });
          }
        }
      } catch (err) {
        fail(
          'read',
          'AGENT_ERR_NRPE_PACKET',
          `${(err as Error).message.replace(/^invalid NRPE packet: /, '')} (from ${peer})`,
        );
      }
    });
    socket.on('end', () => onClosed());
    socket.on('close', () => onClosed());
    socket.on('error', (err: NodeJS.ErrnoException) => {
      const reason = describeSocketError(err);
      if (!connected && isConnectError(err)) fail('connect', 'AGENT_ERR_NRPE_CONNECT', peer, reason);
      // With TLS 1.3 the server checks our certificate after our handshake is done: its alert comes as a read error.
      else if (o.tls && !connected && /HANDSHAKE_FAILURE|NO_SHARED_CIPHER|NO_CIPHERS_AVAILABLE/.test(err.code ?? '')) {
        // No suite in common: a server without a certificate (stock nrpe) has only anonymous ones to offer.
        probing = true;
        const hint = tlsHint(err, HINT_WORDS);
        void probeAnonymous(o, deadline).then((p) =>
          fail('tls', 'AGENT_ERR_NRPE_TLS', peer, p.anonymous ? `${hint}: ${anonymousOnlyAdvice(p.answer)}` : hint),
        );
      } else if (o.tls && isTlsError(err)) fail('tls', 'AGENT_ERR_NRPE_TLS', peer, tlsHint(err, HINT_WORDS));
      else if (!connected && o.tls && err.code === 'ECONNRESET') explainEarlyClose(reason);
      else if (!connected && o.tls) fail('tls', 'AGENT_ERR_NRPE_TLS', peer, reason);
      else if (!connected) fail('connect', 'AGENT_ERR_NRPE_CONNECT', peer, reason);
      else onClosed(reason);
    });

    /**
     * A reset or close before TLS is done has two usual causes; a plain
     * connection tells them apart. Whether the peer's close arrives as a
     * reset or as an end depends on whether our hello reached it first.
     */
    function explainEarlyClose(reason: string): void {
      if (probing) return;
      probing = true;
      void probeReset(o, deadline).then((why) =>
        fail('tls', 'AGENT_ERR_NRPE_TLS', peer, `${reason} during the TLS handshake: ${why}`),
      );
    }

    function onClosed(reason?: string): void {
      if (settled || probing) return;
      if (!connected && o.tls && received === 0 && reason === undefined)
        return explainEarlyClose('connection closed by peer');
      try {
        const last = reader.finish();
        if (last !== undefined && last.version === version && last.type !== QUERY_PACKET) {
          parts.push(last.text);
          return finish(undefined, {
            result: parts.length === 1 ? last.result : result,
            text: Buffer.concat(parts).toString('utf8'),
            version,
          });
        }
      } catch {
        // fall through to the closed message
      }
      const how = reason ? ` (${reason})` : '';
      if (!connected)
        return fail(
          o.tls ? 'tls' : 'connect',
          o.tls ? 'AGENT_ERR_NRPE_TLS' : 'AGENT_ERR_NRPE_CONNECT',
          peer,
          `connection closed during set-up${how}`,
        );
      if (received === 0 && parts.length === 0) {
        const cert = o.tls?.cert ? ', our client certificate' : '';
        return fail(
          'read',
          'AGENT_ERR_NRPE_CLOSED',
          peer,
          `without answering${how}: the server refused the request (arguments or characters it does not allow, a host it does not allow${cert}) or does not speak NRPE`,
        );
      }
      fail('read', 'AGENT_ERR_NRPE_CLOSED', peer, `after ${reader.describePartial()} of an answer${how}`);
    }
  });
}

function where(o: Pick<NrpeClientOptions, 'host' | 'port'>): string {
  return net.isIPv6(o.host) ? `[${o.host}]:${o.port}` : `${o.host}:${o.port}`;
}

function isConnectError(err: NodeJS.ErrnoException): boolean {
  return [
    'ECONNREFUSED',
    'ENOTFOUND',
    'EAI_AGAIN',
    'EHOSTUNREACH',
    'ENETUNREACH',
    'EADDRNOTAVAIL',
    'ETIMEDOUT',
  ].includes(err.code ?? '');
}

/** The NRPE client's hint words: those of its command line. */
const HINT_WORDS: TlsHintWords = {
  peer: 'the server',
  certificate: '--certificate and --certificate-key',
  ca: '--ca and --verify',
  plain: 'try --no-ssl',
};

function lastCause(message: string): string {
  const i = message.indexOf(': ');
  return i === -1 ? message : message.slice(i + 2);
}
