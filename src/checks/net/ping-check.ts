/**
 * check_ping: ICMP echo through the `ping` binary of iputils (as SNClient+
 * does; NSClient++ opens a raw socket, which needs privileges Node cannot
 * take). The host is resolved first by resolve.ts and ping is given the
 * address (-n, no lookups of its own), with LC_ALL=C so its summary parses.
 * No ping binary, or a kernel that refuses ICMP to it, is UNKNOWN saying so.
 */
import { runProgram } from '../scripts/shared-spawner.js';
import { ArgumentError, numberArgument } from '../arguments.js';
import type { CheckDefinition } from '../engine.js';
import type { Values } from '../expression/evaluate.js';
import { Deadline, HOST_OPTION, Unavailable, hostArguments, probeAll, type NetContext } from './net-context.js';
import { resolveHost, type Family } from './resolve.js';

const DEFAULT_TIMEOUT = 500;
/** Milliseconds between echoes (the smallest interval iputils allows an unprivileged user). */
const INTERVAL_MS = 200;

export interface PingSummary {
  sent: number;
  received: number;
  loss: number;
  min?: number;
  time?: number;
  max?: number;
  ttl?: number;
}

/** Parse iputils (or busybox) ping output; undefined when it has no packet counts. */
export function parsePing(out: string): PingSummary | undefined {
  const counts =
    /(\d+) packets transmitted, (\d+) (?:packets )?received(?:, \+\d+ errors)?, ([\d.]+)% packet loss/.exec(out);
  if (!counts) return undefined;
  const s: PingSummary = { sent: Number(counts[1]), received: Number(counts[2]), loss: Number(counts[3]) };
  const rtt = /(?:rtt|round-trip) min\/avg\/max(?:\/mdev)? = ([\d.]+)\/([\d.]+)\/([\d.]+)/.exec(out);
  if (rtt) {
    s.min = Number(rtt[1]);
    s.time = Number(rtt[2]);
    s.max = Number(rtt[3]);
  }
  const ttl = /ttl=(\d+)/.exec(out);
  if (ttl) s.ttl = Number(ttl[1]);
  return s;
}

export function pingCheck(net: NetContext, binary = 'ping'): CheckDefinition {
  return {
    name: 'check_ping',
    title: 'ICMP ping',
    description:
      'Sends count= ICMP echo requests to each host= with the ping binary: round-trip time in milliseconds and packet loss.',
    options: {
      host: HOST_OPTION,
      hosts: HOST_OPTION,
      count: { description: 'Echo requests per host (1-20).', default: '1' },
      timeout: {
        description:
          'Milliseconds to wait for each reply; the whole probe is limited to count × (timeout + 200) + 2000.',
        default: String(DEFAULT_TIMEOUT),
      },
      ipv4: { description: 'Use IPv4 only.', flag: true },
      ipv6: { description: 'Use IPv6 only.', flag: true },
    },
    vars: {
      host: { kind: 'string', description: 'The host as given.' },
      address: { kind: 'string', description: 'The address pinged.' },
      result: {
        kind: 'string',
        description: "'ok' when a reply came, 'lost' when none did, else unresolved, timeout, error.",
      },
      message: { kind: 'string', description: 'What happened, in words.' },
      sent: { kind: 'number', description: 'Echo requests sent.' },
      received: { kind: 'number', description: 'Replies received.' },
      loss: { kind: 'percent', description: 'Packet loss in percent (loss > 5%).' },
      time: { kind: 'ms', description: 'Average round-trip time in milliseconds (empty when no reply came).' },
      min: { kind: 'ms', description: 'Shortest round-trip time in milliseconds.' },
      max: { kind: 'ms', description: 'Longest round-trip time in milliseconds.' },
      ttl: { kind: 'number', description: 'TTL of a reply.' },
    },
    defaults: {
      warning: 'time > 60 or loss > 5%',
      critical: "time > 100 or loss > 10% or result != 'ok'",
      topSyntax: '${status}: ${list}',
      detailSyntax: '${host}: ${message}',
      emptySyntax: '%(status): No hosts to ping',
      emptyState: 'unknown',
    },
    async collect(args, call) {
      const hosts = hostArguments(args);
      const count = numberArgument(args, 'count', 1, { min: 1, max: 20 });
      if (!Number.isInteger(count)) throw new ArgumentError(`count=${count} is not a whole number`);
      const timeoutMs = Math.min(
        numberArgument(args, 'timeout', DEFAULT_TIMEOUT, { min: 1, max: 60_000 }),
        net.maxTimeoutMs,
      );
      const family: Family = args.flag('ipv4') ? 4 : args.flag('ipv6') ? 6 : 0;
      const total = count * (timeoutMs + INTERVAL_MS) + 2000;
      return probeAll(
        net,
        'check_ping',
        hosts,
        total,
        call.signal,
        (host, d) => probePing(binary, host, family, count, timeoutMs, d),
        (host, f) => ({ host, address: '', ...f }),
      );
    },
    perf: (item) => [
      { object: String(item.host), key: 'time', alias: `${item.host} time`, minimum: 0 },
      { object: String(item.host), key: 'loss', alias: `${item.host} loss`, minimum: 0, maximum: 100 },
    ],
  };
}

async function probePing(
  binary: string,
  host: string,
  family: Family,
  count: number,
  timeoutMs: number,
  d: Deadline,
): Promise<Values> {
  const { address, family: fam } = await d.run('resolving the name', (signal) =>
    resolveHost(host, { family, signal, timeoutMs: d.ms }),
  );
  const argv = [
    `-${fam}`,
    '-n',
    '-c',
    String(count),
    '-W',
    (timeoutMs / 1000).toFixed(3),
    ...(count > 1 ? ['-i', String(INTERVAL_MS / 1000)] : []),
    address,
  ];
  const out = await d.run('pinging', (signal) => run(binary, argv, signal));
  const s = parsePing(out.text);
  if (!s) {
    if (/operation not permitted|permission denied|socket:/i.test(out.text))
      throw new Unavailable(
        `ICMP is not permitted here (no CAP_NET_RAW, and net.ipv4.ping_group_range excludes us): ${binary} says ${oneLine(out.text)}`,
      );
    return {
      host,
      address,
      result: 'error',
      message: `cannot parse ping output: ${oneLine(out.text) || `exit code ${out.code}`}`,
    };
  }
  const words = [`${s.received}/${s.sent} replies, loss ${s.loss}%`];
  if (s.time !== undefined) words.push(`rtt ${s.time}ms`);
  return { host, address, result: s.received > 0 ? 'ok' : 'lost', message: words.join(', '), ...s };
}

const oneLine = (t: string): string => t.trim().split('\n').slice(0, 2).join(' ').slice(0, 300);

async function run(
  binary: string,
  argv: string[],
  signal: AbortSignal,
): Promise<{ text: string; code: number | null }> {
  // The check's deadline is the signal; the time limit only bounds a run whose signal never fires.
  const r = await runProgram({
    argv: [binary, ...argv],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
    timeoutMs: 10 * 60_000,
    maxOutputBytes: 65536,
    signal,
  });
  if (r.error !== undefined) {
    if (r.error.endsWith('(ENOENT)'))
      throw new Unavailable(`no ping binary (${binary}) on this host: install iputils-ping`);
    // A ping with file capabilities cannot start where they are not allowed (bounding set without CAP_NET_RAW, nosuid).
    const denied = /\((EPERM|EACCES)\)$/.exec(r.error);
    if (denied)
      throw new Unavailable(
        `ICMP is not permitted here: ${binary} cannot be started (${denied[1]}; it needs CAP_NET_RAW or net.ipv4.ping_group_range)`,
      );
    throw new Error(r.error);
  }
  if (r.aborted) signal.throwIfAborted();
  return { text: `${r.stdout}${r.stderr}`, code: r.code };
}
