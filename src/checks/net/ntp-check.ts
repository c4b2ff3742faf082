/**
 * check_ntp_offset: one SNTP query of our own (RFC 4330: a 48-byte client
 * packet over UDP) to each server=, as NSClient++ does; SNClient+'s reading
 * of timedatectl/chronyc/ntpq is not used. The offset is
 * ((T2 - T1) + (T3 - T4)) / 2 in milliseconds, positive when the server's
 * clock is ahead of ours. A reply counts only from the server's address,
 * in server mode, echoing our transmit time as its originate time.
 */
import { performance } from 'node:perf_hooks';
import { ArgumentError, numberArgument } from '../arguments.js';
import type { CheckDefinition } from '../engine.js';
import type { Values } from '../expression/evaluate.js';
import { Deadline, probeAll, timeoutArgument, timeoutOption, type NetContext } from './net-context.js';
import { resolveHost } from './resolve.js';
import { udpExchange } from './udp-exchange.js';

const DEFAULT_TIMEOUT = 5000;
/** Seconds from 1900-01-01 (NTP era 0) to 1970-01-01. */
const NTP_EPOCH = 2_208_988_800;

/** Wall-clock milliseconds since 1970 with sub-millisecond resolution. */
const clockMs = (): number => performance.timeOrigin + performance.now();

/** Write a Unix time in ms as an NTP timestamp at `at`. */
export function writeNtpTime(buf: Buffer, at: number, unixMs: number): void {
  const secs = Math.floor(unixMs / 1000);
  buf.writeUInt32BE((secs + NTP_EPOCH) >>> 0, at);
  buf.writeUInt32BE(Math.floor(((unixMs - secs * 1000) / 1000) * 2 ** 32) >>> 0, at + 4);
}

/** Read an NTP timestamp at `at` as Unix milliseconds (era 0; good until 2036). */
export function readNtpTime(buf: Buffer, at: number): number {
  return (buf.readUInt32BE(at) - NTP_EPOCH) * 1000 + (buf.readUInt32BE(at + 4) / 2 ** 32) * 1000;
}

export function ntpCheck(net: NetContext): CheckDefinition {
  return {
    name: 'check_ntp_offset',
    title: 'NTP clock offset',
    description:
      'Asks each server= over SNTP (UDP) for its time: offset of our clock in milliseconds, stratum, round-trip delay.',
    options: {
      server: {
        description:
          'NTP server address or name; repeatable, or several separated by commas (servers= is the same); required.',
        repeat: true,
      },
      servers: { description: 'Same as server=.', repeat: true },
      port: { description: 'UDP port of the servers.', default: '123' },
      timeout: timeoutOption(DEFAULT_TIMEOUT),
    },
    vars: {
      server: { kind: 'string', description: 'The server asked.' },
      result: {
        kind: 'string',
        description:
          "'ok', or what went wrong: timeout, refused, unresolved, kiss (the server sent a kiss-o'-death), error.",
      },
      message: { kind: 'string', description: 'What happened, in words.' },
      offset: { kind: 'ms', description: "Milliseconds the server's clock is ahead of ours (negative when behind)." },
      stratum: { kind: 'number', description: 'Stratum of the server (16 means unsynchronised).' },
      delay: { kind: 'ms', description: "Round-trip delay in milliseconds, without the server's own processing." },
      leap: {
        kind: 'number',
        description: 'Leap indicator: 0 none, 1/2 a leap second today, 3 clock not synchronised.',
      },
      refid: {
        kind: 'string',
        description: 'Reference id: the upstream address, or a code such as GPS or a kiss code.',
      },
    },
    defaults: {
      warning: 'offset > 50 or offset < -50 or stratum >= 16',
      critical: "offset > 100 or offset < -100 or result != 'ok'",
      topSyntax: '${status}: ${list}',
      detailSyntax: '${server}: ${message}',
      emptySyntax: '%(status): No NTP servers to ask',
      emptyState: 'unknown',
    },
    async collect(args, call) {
      const servers = [...args.all('server'), ...args.all('servers')]
        .flatMap((s) => s.split(','))
        .map((s) => s.trim())
        .filter(Boolean);
      if (servers.length === 0) throw new ArgumentError('server= is required (the NTP server to ask)');
      const port = numberArgument(args, 'port', 123, { min: 1, max: 65535 });
      const timeoutMs = timeoutArgument(args, DEFAULT_TIMEOUT, net);
      return probeAll(
        net,
        'check_ntp_offset',
        servers,
        timeoutMs,
        call.signal,
        (server, d) => probeNtp(server, port, d),
        (server, f) => ({ server, ...f }),
      );
    },
    perf: (item) => [
      { object: String(item.server), key: 'offset', alias: `${item.server} offset` },
      { object: String(item.server), key: 'stratum', alias: `${item.server} stratum`, minimum: 0 },
      { object: String(item.server), key: 'delay', alias: `${item.server} delay`, minimum: 0 },
    ],
  };
}

export async function probeNtp(server: string, port: number, d: Deadline): Promise<Values> {
  const { address, family } = await d.run('resolving the server name', (signal) =>
    resolveHost(server, { signal, timeoutMs: d.ms }),
  );
  const { reply, t1, t4 } = await d.run('waiting for the reply', (signal) => exchange(address, family, port, signal));
  const t2 = readNtpTime(reply, 32);
  const t3 = readNtpTime(reply, 40);
  const stratum = reply.readUInt8(1);
  const leap = reply.readUInt8(0) >> 6;
  const refid =
    stratum <= 1 ? reply.toString('ascii', 12, 16).replace(/\0+$/, '') : [...reply.subarray(12, 16)].join('.');
  const offset = Number(((t2 - t1 + (t3 - t4)) / 2).toFixed(3));
  const delay = Number(Math.max(0, t4 - t1 - (t3 - t2)).toFixed(3));
  const base = { server, stratum, leap, refid, delay };
  if (stratum === 0) return { ...base, result: 'kiss', message: `kiss-o'-death ${refid || '(no code)'}` };
  return { ...base, offset, result: 'ok', message: `offset ${offset}ms, stratum ${stratum}, delay ${delay}ms` };
}

function exchange(
  address: string,
  family: 4 | 6,
  port: number,
  signal: AbortSignal,
): Promise<{ reply: Buffer; t1: number; t4: number }> {
  const packet = Buffer.alloc(48);
  packet[0] = 0x23; // LI 0, version 4, mode 3 (client)
  let t1 = 0;
  const request = (): Buffer => {
    t1 = clockMs();
    writeNtpTime(packet, 40, t1);
    // The low bits of the fraction are below the clock's resolution: make them random so a blind reply cannot guess them.
    packet.writeUInt8(Math.floor(Math.random() * 256), 47);
    return packet;
  };
  // Ours: server mode (4), and our transmit time echoed as originate time.
  const accept = (msg: Buffer): { reply: Buffer; t1: number; t4: number } | undefined => {
    const t4 = clockMs();
    if (msg.length < 48 || (msg.readUInt8(0) & 7) !== 4 || !msg.subarray(24, 32).equals(packet.subarray(40, 48)))
      return undefined;
    return { reply: msg, t1, t4 };
  };
  return udpExchange(address, family, port, signal, request, accept);
}
