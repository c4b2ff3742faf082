/**
 * The soak's abuse generator, run as its own process (never in the agent's):
 * `node soak-abuser.js '<json config>'`. For `durationMs` it keeps mixed
 * abuse on the three ports of one agent, from loopback addresses
 * 127.0.0.2-11 (so the honest clients on 127.0.0.1 are never the ones
 * refused), plus parallel settings edits from 127.0.0.1 through the API and
 * through `config-agent web add-user` processes:
 * - random bytes, plain TCP, to every port;
 * - truncated input: the first half of a valid NRPE packet, agent frame or
 *   HTTP request over TLS, then the end of the stream;
 * - idle connections that never send a byte;
 * - valid requests trickled one byte per TLS record;
 * - oversized input: an agent frame announcing 4 GiB, an NRPE v4 packet
 *   announcing 16 MiB, an HTTP request with 64 KiB of headers;
 * - API edits (two keys, alternating values) and CLI edits (one user,
 *   written again and again), each waiting for the previous one.
 * Every loop is bounded in count and time and every socket is destroyed
 * within SOCKET_LIFE_MS. Prints one JSON line of counts at the end.
 */
import { execFile } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { encodeFrame, FrameKind, HEADER_SIZE } from '../../src/protocols/agent/framing.js';
import { encodePacket, QUERY_PACKET } from '../../src/protocols/nrpe/packet.js';
import { MAIN } from './agent-process.js';
import { queryFrame } from './abuse-peers.js';
import { webRequest } from './web-client.js';
import { inRange } from '../../src/in-range.js';

export interface AbuserConfig {
  ports: { web: number; nrpe: number; agent: number };
  password: string;
  settingsFile: string;
  durationMs: number;
}

const SOCKET_LIFE_MS = 3000;
const ATTACKERS = Array.from({ length: 10 }, (_, i) => `127.0.0.${i + 2}`);
/** Upper bound of iterations per worker, whatever the duration. */
const MAX_ROUNDS = 100_000;

const counts: Record<string, number> = {};
const count = (what: string): void => {
  counts[what] = (counts[what] ?? 0) + 1;
};

const config = JSON.parse(process.argv[2] ?? '{}') as AbuserConfig;
const end = Date.now() + config.durationMs;
const live = (): boolean => Date.now() < end;
const attacker = (): string => inRange(ATTACKERS, randomInt(ATTACKERS.length));
const anyPort = (): number => inRange([config.ports.web, config.ports.nrpe, config.ports.agent], randomInt(3));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** TLS options per port: NRPE speaks anonymous DH, as check_nrpe does. */
function tlsOptions(port: number): ConnectionOptions {
  // tls.connect takes every socket.connect() option (localAddress too); the type does not list it.
  const base = { host: '127.0.0.1', port, localAddress: attacker(), rejectUnauthorized: false } as ConnectionOptions;
  return port === config.ports.nrpe ? { ...base, ciphers: 'ALL:@SECLEVEL=0', maxVersion: 'TLSv1.2' } : base;
}

/** A socket that is destroyed after SOCKET_LIFE_MS whatever happens; resolves when closed. */
function bounded(s: Socket, lifeMs = SOCKET_LIFE_MS): Promise<void> {
  s.on('error', () => undefined);
  s.on('data', () => undefined);
  const timer = setTimeout(() => s.destroy(), lifeMs);
  return new Promise((res) =>
    s.once('close', () => {
      clearTimeout(timer);
      res();
    }),
  );
}

function tlsOpen(port: number): Promise<TLSSocket | undefined> {
  return new Promise((res) => {
    const s = tlsConnect(tlsOptions(port));
    void bounded(s);
    s.once('secureConnect', () => res(s));
    s.once('close', () => res(undefined));
  });
}

async function trickle(s: TLSSocket, bytes: Buffer, pauseMs: number): Promise<void> {
  for (let i = 0; i < bytes.length && !s.destroyed; i++) {
    await new Promise<void>((res) => s.write(bytes.subarray(i, i + 1), () => res()));
    await sleep(pauseMs);
  }
}

/** A valid request for each port (what trickling and truncating start from). */
function validRequest(port: number): Buffer {
  if (port === config.ports.agent) return queryFrame(1, 'check_ok', ['x'.repeat(64)]);
  if (port === config.ports.nrpe) return encodePacket({ version: 2, type: QUERY_PACKET, text: 'check_ok' });
  return Buffer.from(
    `GET /api/v1/queries/check_ok/commands/execute HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic ${Buffer.from(`root:${config.password}`).toString('base64')}\r\n\r\n`,
  );
}

// ---------------------------------------------------------------- workers

async function randomInput(): Promise<void> {
  for (let i = 0; i < MAX_ROUNDS && live(); i++) {
    const s = netConnect({ host: '127.0.0.1', port: anyPort(), localAddress: attacker() });
    s.once('connect', () => s.write(randomBytes(randomInt(1, 4096))));
    await bounded(s, randomInt(50, 500));
    count('random');
  }
}

async function truncated(): Promise<void> {
  for (let i = 0; i < MAX_ROUNDS && live(); i++) {
    const port = anyPort();
    const s = await tlsOpen(port);
    if (s) {
      const req = validRequest(port);
      s.end(req.subarray(0, randomInt(1, req.length)));
      await bounded(s);
      count('truncated');
    } else count('truncated-refused');
  }
}

async function idle(): Promise<void> {
  for (let i = 0; i < MAX_ROUNDS && live(); i++) {
    const batch: Promise<void>[] = [];
    for (let j = 0; j < 15; j++) {
      const s = netConnect({ host: '127.0.0.1', port: anyPort(), localAddress: attacker() });
      batch.push(bounded(s, 2500));
      count('idle');
    }
    await Promise.all(batch);
  }
}

async function trickled(): Promise<void> {
  for (let i = 0; i < MAX_ROUNDS && live(); i++) {
    const port = i % 2 === 0 ? config.ports.agent : config.ports.web;
    const s = await tlsOpen(port);
    if (!s) continue;
    await trickle(s, validRequest(port), 5);
    s.destroy();
    count('trickled');
  }
}

async function oversized(): Promise<void> {
  for (let i = 0; i < MAX_ROUNDS && live(); i++) {
    const which = i % 3;
    const port = inRange([config.ports.agent, config.ports.nrpe, config.ports.web], which);
    const s = await tlsOpen(port);
    if (!s) continue;
    if (which === 0) {
      // A frame header announcing 4 GiB, then 256 KiB of it.
      const header = encodeFrame(FrameKind.QueryRequest, Buffer.alloc(0)).subarray(0, HEADER_SIZE);
      header.writeUInt32BE(0xfffffff0, 8);
      s.write(Buffer.concat([header, randomBytes(256 * 1024)]));
    } else if (which === 1) {
      // An NRPE v4 packet announcing a 16 MiB buffer.
      const packet = encodePacket({ version: 4, type: QUERY_PACKET, text: 'check_ok' });
      packet.writeInt32BE(16 * 1024 * 1024, 12);
      s.write(Buffer.concat([packet, randomBytes(64 * 1024)]));
    } else {
      s.write(`GET /api/v1/info HTTP/1.1\r\nHost: 127.0.0.1\r\n${`X-Pad: ${'y'.repeat(1000)}\r\n`.repeat(64)}\r\n`);
    }
    await bounded(s);
    count('oversized');
  }
}

async function apiEdits(): Promise<void> {
  for (let i = 0; i < MAX_ROUNDS && live(); i++) {
    const body =
      i % 2 === 0
        ? { path: '/settings/external scripts', key: 'timeout', value: String(60 + (i % 4)) }
        : { path: '/settings/WEB/server', key: 'auth rate limit block seconds', value: String(60 + (i % 4)) };
    try {
      const r = await webRequest(`https://127.0.0.1:${config.ports.web}/api/v1/settings`, {
        method: 'PUT',
        user: 'root',
        password: config.password,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        timeoutMs: 10_000,
      });
      count(`api-edit-${r.status}`);
    } catch {
      count('api-edit-error');
    }
    await sleep(300);
  }
}

async function cliEdits(): Promise<void> {
  for (let i = 0; i < MAX_ROUNDS && live(); i++) {
    const code = await new Promise<number>((res) => {
      execFile(
        process.execPath,
        [
          MAIN,
          'web',
          'add-user',
          '--settings',
          config.settingsFile,
          '--user',
          'soak',
          '--password',
          `soak-password-${i % 3}`,
          '--role',
          'client',
        ],
        { timeout: 60_000 },
        (err) => res(err ? (typeof err.code === 'number' ? err.code : 99) : 0),
      );
    });
    count(`cli-edit-exit-${code}`);
    await sleep(1000);
  }
}

const started = Date.now();
await Promise.all([randomInput(), randomInput(), truncated(), idle(), trickled(), oversized(), apiEdits(), cliEdits()]);
console.log(JSON.stringify({ ms: Date.now() - started, counts }));
