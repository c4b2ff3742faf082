/**
 * The NSCA client: one connection per batch of results, as send_nsca
 * sends every line of its input over one connection (see sendNsca for the
 * 512-byte payload). Connect, read the
 * 132-byte init packet (IV and timestamp), write each data packet
 * encrypted with the connection's cipher state, close. NSCA answers
 * nothing: a batch counts as sent when every byte was written and the
 * connection closed cleanly (the daemon drops packets with a bad CRC,
 * which is what a wrong password or payload length gives, and logs it).
 *
 * Every failure rejects with an AgentError AGENT_ERR_NSCA_SEND naming the
 * server and what happened; `timeoutMs` bounds the whole exchange.
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
    return sendBatch(o, results);
  for (const r of results) await sendBatch(o, [r]);
}

/** The payload length of nsca 2.9+'s packet, the only one several of which can share a connection. */
const MAX_BATCHED_PAYLOAD = 4096;

async function sendBatch(o: NscaClientOptions, results: readonly NscaResult[]): Promise<void> {
  const where = `${o.host}:${o.port}`;
  const fail = (what: string): AgentError => new AgentError('AGENT_ERR_NSCA_SEND', [where, what]);
  if (o.signal?.aborted) throw fail('cancelled');
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect({ host: o.host, port: o.port });
    const chunks: Buffer[] = [];
    let received = 0;
    let stage: 'connect' | 'init' | 'send' | 'done' = 'connect';
    const finish = (err?: Error): void => {
      if (stage === 'done') return;
      stage = 'done';
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      if (err) {
        socket.destroy();
        reject(err);
      } else resolve();
    };
    const onAbort = (): void => finish(fail('cancelled'));
    o.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(
      () =>
        finish(
          fail(
            `no ${stage === 'connect' ? 'connection' : stage === 'init' ? 'init packet' : 'end of the exchange'} within ${o.timeoutMs / 1000} s`,
          ),
        ),
      o.timeoutMs,
    );
    socket.setNoDelay(true);
    socket.on('connect', () => (stage = 'init'));
    socket.on('error', (err: NodeJS.ErrnoException) =>
      finish(fail(stage === 'connect' ? `cannot connect: ${describeSocketError(err)}` : describeSocketError(err))),
    );
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
        socket.end(Buffer.concat(packets), () => finish());
      } catch (err) {
        finish(fail(err instanceof Error ? err.message : String(err)));
      }
    });
    socket.on('close', () => {
      if (stage === 'init' || stage === 'connect')
        finish(fail(`closed the connection before the init packet (${received} of ${INIT_PACKET_SIZE} bytes)`));
    });
  });
}
