/**
 * Hostile and honest peers for the listener tests and the soak: idle
 * connections from chosen loopback addresses, frames trickled one byte per
 * TLS record, and one valid query per protocol (agent protocol over TLS,
 * NRPE through Debian's check_nrpe, HTTPS to the web API). Every wait is
 * bounded; every socket opened here is destroyed by its owner.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type PeerCertificate, type TLSSocket } from 'node:tls';
import { FrameReader } from '../../src/protocols/agent/frame-reader.js';
import { encodeFrame, FrameKind } from '../../src/protocols/agent/framing.js';
import { decode, encode } from '../../src/core/plugin/codec.js';
import { checkNrpe } from './nrpe-daemon.js';
import { webRequest } from './web-client.js';
import { waitUntil } from './wait-until.js';

export interface IdlePeers {
  sockets: Socket[];
  /** Sockets the server has closed (or that failed) so far. */
  closed(): number;
  destroy(): void;
}

/**
 * Opens `n` TCP connections to 127.0.0.1:port that never send a byte,
 * round-robin from `from` (local addresses such as 127.0.0.2), in batches
 * so that the listen backlog is not what refuses them.
 */
export async function openIdle(port: number, n: number, from: readonly string[] = ['127.0.0.1']): Promise<IdlePeers> {
  const sockets: Socket[] = [];
  let closed = 0;
  for (let i = 0; i < n; i++) {
    const s = netConnect({ host: '127.0.0.1', port, localAddress: from[i % from.length] });
    s.on('error', () => undefined);
    s.once('close', () => closed++);
    sockets.push(s);
    if (i % 50 === 49) await sleep(10);
  }
  // Bounded wait until every socket is connected or closed.
  const until = Date.now() + 10_000;
  while (Date.now() < until && sockets.some((s) => s.connecting)) await sleep(20);
  return {
    sockets,
    closed: () => closed,
    destroy: () => {
      for (const s of sockets) s.destroy();
    },
  };
}

/** A QueryRequest frame for `command` (agent protocol). */
export function queryFrame(id: number, command: string, args: string[] = []): Buffer {
  return encodeFrame(
    FrameKind.QueryRequest,
    encode('QueryRequestMessage', {
      header: { type: 1, version: 1, max_supported_version: 1, id },
      payload: [{ command, arguments: args }],
    }),
  );
}

/** Connects over TLS to an AgentServer on 127.0.0.1 (any certificate). */
export async function agentTls(port: number, timeoutMs = 5000): Promise<TLSSocket> {
  const s = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false });
  s.on('error', () => undefined);
  await withTimeout(
    new Promise<void>((res, rej) =>
      s.once('secureConnect', () => res()).once('close', () => rej(new Error('closed before the handshake'))),
    ),
    timeoutMs,
    'TLS handshake',
  );
  return s;
}

/** Sends `frame` on `socket` and resolves with the message of the first answer frame (rejects when closed first). */
export function answerOf(socket: Socket, frame: Buffer | undefined, timeoutMs = 5000): Promise<string> {
  const reader = new FrameReader(1 << 24);
  const answer = new Promise<string>((res, rej) => {
    socket.on('data', (c: Buffer) => {
      const [f] = reader.push(c).frames;
      if (f)
        res(
          decode('QueryResponseMessage', f.body)
            .payload.map((p) => p.message)
            .join('; '),
        );
    });
    socket.once('close', () => rej(new Error('connection closed without an answer')));
  });
  if (frame) socket.write(frame);
  return withTimeout(answer, timeoutMs, 'agent-protocol answer');
}

/** One valid agent_query over TLS (with `args`); resolves with the answer's message. */
export async function agentQuery(
  port: number,
  command = 'check_ok',
  timeoutMs = 5000,
  args: string[] = [],
): Promise<string> {
  const s = await agentTls(port, timeoutMs);
  try {
    return await answerOf(s, queryFrame(1, command, args), timeoutMs);
  } finally {
    s.destroy();
  }
}

/** One valid NRPE query with Debian's check_nrpe (TLS, ADH); resolves with exit code and output. */
export function nrpeQuery(port: number, command?: string): Promise<{ code: number; out: string }> {
  return checkNrpe(port, command ? ['-c', command] : []);
}

/** One valid HTTPS request to the web API; resolves with the status. */
export async function webQuery(port: number, password: string, timeoutMs = 5000): Promise<number> {
  return (await webRequest(`https://127.0.0.1:${port}/api/v1/info`, { user: 'root', password, timeoutMs })).status;
}

/**
 * Writes `bytes` one byte per TLS record: each write waits for the
 * previous one, so TLS cannot merge them. `pauseMs` waits between bytes.
 */
export async function trickle(socket: TLSSocket, bytes: Buffer, pauseMs = 0): Promise<void> {
  for (let i = 0; i < bytes.length && !socket.destroyed; i++) {
    await new Promise<void>((res) => socket.write(bytes.subarray(i, i + 1), () => res()));
    if (pauseMs > 0) await sleep(pauseMs);
  }
}

/** The CN of the certificate the TLS listener on 127.0.0.1:port presents, or the error code of the attempt (3 s at most). */
export function presentedName(port: number): Promise<string> {
  return new Promise((res) => {
    const s = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false, ciphers: 'DEFAULT:@SECLEVEL=0' });
    const timer = setTimeout(() => {
      s.destroy();
      res('timeout');
    }, 3000);
    s.once('secureConnect', () => {
      clearTimeout(timer);
      // {} when the peer sent no certificate, though typed PeerCertificate.
      const cert: Partial<PeerCertificate> = s.getPeerCertificate();
      const cn = String(cert.subject?.CN ?? '');
      s.destroy();
      res(cn);
    });
    s.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      res(err.code ?? err.message);
    });
  });
}

/** Open file descriptors of a process (Linux /proc). */
export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** The soft limit of open files of this process. */
export function ownFdLimit(): number {
  const line =
    readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files')) ?? '';
  const n = Number(line.split(/\s+/)[3]);
  return Number.isFinite(n) ? n : 1024;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `cond` every 50 ms until it holds or `ms` pass; resolves with its last value. */
export async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  return waitUntil(cond, ms).then(
    () => true,
    () => cond(),
  );
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, rej) => {
      timer = setTimeout(() => rej(new Error(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]);
}
