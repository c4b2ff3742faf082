/**
 * The NSCA client: one connection per batch of results, as send_nsca
 * sends every line of its input over one connection (see sendNsca for the
 * 512-byte payload). Connect, read the
 * 132-byte init packet (IV and timestamp), write each data packet
 * encrypted with the connection's cipher state, end our side and wait for
 * the server to close. NSCA answers nothing: a batch counts as sent when
 * every byte was written (the daemon drops packets with a bad CRC, which is
 * what a wrong password or payload length gives, and logs it).
 *
 * Bounded: `timeoutMs` bounds the whole exchange, connect to close; a
 * server that took every byte but never closes has the connection closed
 * by us at that deadline (the batch counts as sent), so a server that
 * never closes costs one socket per target, not one per send. Connections
 * to one server (host and port) take turns, one at a time, at most
 * MAX_CONNECTIONS_PER_SECOND a second: a queue of results that drains
 * when the server comes back opens them one after the other.
 *
 * Every failure rejects with an AgentError AGENT_ERR_NSCA_SEND naming the
 * server and what happened.
 */
import * as net from 'node:net';
import { AgentError } from '../../errors.js';
import { describeSocketError } from '../client-errors.js';
import { packetEncryptor } from './crypt.js';
import { encodeDataPacket, INIT_PACKET_SIZE, packetSize, parseInitPacket, type NscaResult } from './packet.js';

export interface NscaClientOptions {
  host: string;
  port: number;
  /** nsca's method number (crypt.ts). */
  method: number;
  password: string;
  /** Plugin output field size: 512 or 4096 for Debian's daemon. */
  payloadLength: number;
  /** Bound on the whole exchange, in milliseconds. */
  timeoutMs: number;
  /** Seconds added to the server's timestamp (NSClient++'s `time offset`). */
  timeOffset?: number;
  signal?: AbortSignal | undefined;
}

/**
 * Sends `results`: over one connection with a payload length of 4096, one
 * connection each otherwise. nsca 2.9 and later read 4304 bytes per packet
 * and take a 720-byte (payload 512) packet only when the connection ends
 * right after it; two of them on one connection are dropped as too short.
 */
export async function sendNsca(o: NscaClientOptions, results: readonly NscaResult[]): Promise<void> {
  if (packetSize(o.payloadLength) === packetSize(MAX_BATCHED_PAYLOAD) || results.length <= 1)
    return inTurn(`${o.host}:${o.port}`, () => sendBatch(o, results));
  for (const r of results) await inTurn(`${o.host}:${o.port}`, () => sendBatch(o, [r]));
}

/** The payload length of nsca 2.9+'s packet, the only one several of which can share a connection. */
const MAX_BATCHED_PAYLOAD = 4096;

/** Connections opened to one server a second, at most (one every 10 ms: a drained queue of 1,000 results at payload 512 takes 10 s). */
export const MAX_CONNECTIONS_PER_SECOND = 100;

/** Per server: the turn of the last connection asked for; the next one starts when it has ended (and its pause passed). */
const turns = new Map<string, Promise<void>>();

/** Runs `send` when the connections to `where` asked for before it have ended, one at a time and paced. */
async function inTurn(where: string, send: () => Promise<void>): Promise<void> {
  const before = turns.get(where) ?? Promise.resolve();
  let release!: () => void;
  const ended = new Promise<void>((resolve) => (release = resolve));
  const mine = before.then(() => ended);
  turns.set(where, mine);
  await before;
  const started = performance.now();
  try {
    await send();
  } finally {
    const pause = Math.max(0, started + 1000 / MAX_CONNECTIONS_PER_SECOND - performance.now());
    setTimeout(() => {
      if (turns.get(where) === mine) turns.delete(where);
      release();
    }, pause).unref();
  }
}

async function sendBatch(o: NscaClientOptions, results: readonly NscaResult[]): Promise<void> {
  const where = `${o.host}:${o.port}`;
  const fail = (what: string): AgentError => new AgentError('AGENT_ERR_NSCA_SEND', [where, what]);
  if (o.signal?.aborted) throw fail('cancelled');
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect({ host: o.host, port: o.port });
    const chunks: Buffer[] = [];
    let received = 0;
    /** `closing`: every byte written and our side ended; waiting for the server's close. */
    let stage: 'connect' | 'init' | 'send' | 'closing' | 'done' = 'connect';
    const finish = (err?: Error): void => {
      if (stage === 'done') return;
      stage = 'done';
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      // Closed on every path: a server that never closes must not keep our socket.
      socket.destroy();
      if (err) reject(err);
      else resolve();
    };
    const onAbort = (): void => finish(stage === 'closing' ? undefined : fail('cancelled'));
    o.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => {
      // Every byte was written: sent; the server only kept its side open, which no longer holds ours.
      if (stage === 'closing') return finish();
      finish(
        fail(
          `no ${stage === 'connect' ? 'connection' : stage === 'init' ? 'init packet' : 'end of the exchange'} within ${o.timeoutMs / 1000} s`,
        ),
      );
    }, o.timeoutMs);
    socket.setNoDelay(true);
    socket.on('connect', () => (stage = 'init'));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (stage === 'closing') return finish();
      finish(fail(stage === 'connect' ? `cannot connect: ${describeSocketError(err)}` : describeSocketError(err)));
    });
    socket.on('data', (chunk: Buffer) => {
      if (stage !== 'init') return;
      chunks.push(chunk);
      received += chunk.length;
      if (received < INIT_PACKET_SIZE) return;
      stage = 'send';
      try {
        const init = parseInitPacket(Buffer.concat(chunks, received).subarray(0, INIT_PACKET_SIZE));
        const encrypt = packetEncryptor(o.method, o.password, init.iv);
        const timestamp = init.timestamp + (o.timeOffset ?? 0);
        const packets = results.map((r) => {
          const p = encodeDataPacket(r, timestamp, o.payloadLength);
          encrypt(p);
          return p;
        });
        socket.end(Buffer.concat(packets), () => {
          if (stage === 'send') stage = 'closing';
        });
      } catch (err) {
        finish(fail(err instanceof Error ? err.message : String(err)));
      }
    });
    socket.on('close', () => {
      // Written to the end and then closed by the server (nsca closes when it has read our end): sent.
      if (stage === 'closing' || (stage === 'send' && socket.writableFinished)) return finish();
      if (stage === 'init' || stage === 'connect')
        finish(fail(`closed the connection before the init packet (${received} of ${INIT_PACKET_SIZE} bytes)`));
      else finish(fail(`the server closed the connection before every byte was written`));
    });
  });
}
