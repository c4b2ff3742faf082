/**
 * check_dns: asks a DNS server over UDP, ourselves (dns-wire.ts), for each
 * host= and reports the rcode, the answers and the time. server= names the
 * server (default: the first nameserver of /etc/resolv.conf). A reply
 * counts only when it comes from that server's address and port, with our
 * random id and our question; anything else is ignored until the deadline.
 */
import { readFile } from 'node:fs/promises';
import { randomInt } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ArgumentError, numberArgument, type CheckArguments } from '../arguments.js';
import type { CheckDefinition } from '../engine.js';
import type { Values } from '../expression/evaluate.js';
import { Deadline, probeAll, since, timeoutArgument, timeoutOption, type NetContext } from './net-context.js';
import { resolveHost } from './resolve.js';
import { DnsWireError, TYPES, decodeReply, encodeQuery, type DnsReply } from './dns-wire.js';
import { udpExchange } from './udp-exchange.js';

const DEFAULT_TIMEOUT = 5000;

export interface DnsProbe {
  host: string;
  server: string;
  port: number;
  type: string;
  /** The number of `type` on the wire. */
  qtype: number;
  norec: boolean;
  expect: string[];
}

export function dnsCheck(net: NetContext, resolvConf = '/etc/resolv.conf'): CheckDefinition {
  return {
    name: 'check_dns',
    title: 'DNS lookup',
    description:
      'Asks a DNS server (server=, default the first nameserver of /etc/resolv.conf) over UDP for each host=: rcode, answers, time in milliseconds.',
    options: {
      host: {
        description: 'Name to look up; repeatable, or several separated by commas (hosts= is the same); required.',
        repeat: true,
      },
      hosts: { description: 'Same as host=.', repeat: true },
      server: {
        description: 'DNS server address (or name); repeatable: each host is asked of each server.',
        default: 'first nameserver of /etc/resolv.conf',
        repeat: true,
      },
      port: { description: 'UDP port of the server.', default: '53' },
      type: { description: `Record type: ${Object.keys(TYPES).join(', ')}.`, default: 'A' },
      expect: {
        description:
          'Expected answer; repeatable or comma-separated: the answers must be exactly these (any order), else result is mismatch.',
        repeat: true,
      },
      norec: { description: 'Clear the recursion-desired flag.', flag: true },
      timeout: timeoutOption(DEFAULT_TIMEOUT),
    },
    vars: {
      host: { kind: 'string', description: 'The name looked up.' },
      server: { kind: 'string', description: 'The server asked.' },
      type: { kind: 'string', description: 'The record type asked for.' },
      result: {
        kind: 'string',
        description:
          "'ok', or what went wrong: timeout, NXDOMAIN, SERVFAIL, REFUSED, ... (the rcode), noanswer, mismatch, unresolved, error.",
      },
      rcode: {
        kind: 'string',
        description: 'Response code of the reply (NOERROR, NXDOMAIN, ...; empty without a reply).',
      },
      message: { kind: 'string', description: 'What happened, in words.' },
      time: { kind: 'ms', description: 'Milliseconds until the reply.' },
      answers: { kind: 'string', description: 'The answers of the asked type, comma-separated.' },
      answer_count: { kind: 'number', description: 'How many answers of the asked type.' },
      first: { kind: 'string', description: 'The first answer.' },
    },
    defaults: {
      warning: 'time > 1000',
      critical: "result != 'ok'",
      topSyntax: '${status}: ${list}',
      detailSyntax: '${host} ${type} from ${server}: ${message} in ${time}ms',
      emptySyntax: '%(status): No names to look up',
      emptyState: 'unknown',
    },
    async collect(args, call) {
      const probes = await dnsProbes(args, resolvConf);
      const timeoutMs = timeoutArgument(args, DEFAULT_TIMEOUT, net);
      return probeAll(net, 'check_dns', probes, timeoutMs, call.signal, probeDns, (p, f, d) => ({
        host: p.host,
        server: p.server,
        type: p.type,
        ...f,
        rcode: '',
        time: d.elapsed(),
        answers: '',
        answer_count: 0,
        first: '',
      }));
    },
    perf: (item) => [{ object: `${item.host}@${item.server}`, key: 'time', alias: `${item.host} time`, minimum: 0 }],
  };
}

const list = (values: string[]): string[] =>
  values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);

async function dnsProbes(args: CheckArguments, resolvConf: string): Promise<DnsProbe[]> {
  const hosts = list([...args.all('host'), ...args.all('hosts')]);
  if (hosts.length === 0) throw new ArgumentError('host= is required (the name to look up)');
  const type = (args.get('type') ?? 'A').toUpperCase();
  const qtype = TYPES[type];
  if (qtype === undefined) throw new ArgumentError(`type=${type} is not one of ${Object.keys(TYPES).join(', ')}`);
  const port = numberArgument(args, 'port', 53, { min: 1, max: 65535 });
  let servers = list(args.all('server'));
  if (servers.length === 0) {
    const text = await readFile(resolvConf, 'utf8').catch(() => '');
    const first = /^\s*nameserver\s+(\S+)/m.exec(text)?.[1];
    if (!first) throw new ArgumentError(`server= is required: no nameserver in ${resolvConf}`);
    servers = [first];
  }
  const expect = list(args.all('expect'));
  return hosts.flatMap((host) =>
    servers.map((server) => ({ host, server, port, type, qtype, norec: args.flag('norec'), expect })),
  );
}

/** One question to one server; resolves an item, rejects when the deadline passes or the socket fails. */
export async function probeDns(p: DnsProbe, d: Deadline): Promise<Values> {
  const t0 = performance.now();
  const server = await d.run('resolving the server name', (signal) =>
    resolveHost(p.server, { signal, timeoutMs: d.ms }),
  );
  const qtype = p.qtype;
  const id = randomInt(0, 65536);
  const query = encodeQuery(id, p.host, qtype, p.norec);
  const name = p.host.replace(/\.$/, '').toLowerCase();
  const ours = (msg: Buffer): DnsReply | undefined => {
    try {
      const r = decodeReply(msg);
      return r.id === id && r.question.type === qtype && r.question.name.toLowerCase() === name ? r : undefined;
    } catch (err) {
      if (err instanceof DnsWireError) return undefined; // not a reply of ours; keep waiting
      throw err;
    }
  };
  const reply = await d.run('waiting for the reply', (signal) =>
    udpExchange(server.address, server.family, p.port, signal, () => query, ours),
  );
  const time = since(t0);
  const answers = reply.answers.filter((a) => a.type === p.type).map((a) => a.data);
  const base = {
    host: p.host,
    server: p.server,
    type: p.type,
    rcode: reply.rcode,
    time,
    answers: answers.join(','),
    answer_count: answers.length,
    first: answers[0] ?? '',
  };
  if (reply.rcode !== 'NOERROR') return { ...base, result: reply.rcode, message: `server answered ${reply.rcode}` };
  if (answers.length === 0)
    return {
      ...base,
      result: 'noanswer',
      message: `no ${p.type} record${reply.truncated ? ' (reply truncated)' : ''}`,
    };
  if (p.expect.length > 0) {
    const want = new Set(p.expect.map((e) => e.toLowerCase()));
    const got = new Set(answers.map((a) => a.toLowerCase()));
    const same = want.size === got.size && [...want].every((w) => got.has(w));
    if (!same)
      return { ...base, result: 'mismatch', message: `returns ${answers.join(', ')}, expected ${p.expect.join(', ')}` };
  }
  return { ...base, result: 'ok', message: `returns ${answers.join(', ')}` };
}
