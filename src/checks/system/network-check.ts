/**
 * check_network: traffic per interface. Totals, errors and drops come from
 * /proc/net/dev (paired with interfaces by name), link speed, state and MAC
 * from /sys/class/net/<if>/; rates are computed between calls
 * (counter-history.ts).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckDefinition } from '../engine.js';
import type { Values } from '../expression/evaluate.js';
import {
  counterDelta,
  counterRate,
  flattenCounters,
  objectNames,
  sharedCounterHistory,
  type CounterHistory,
} from '../rates/counter-history.js';
import { realHost, type HostSources } from '../host/host-sources.js';
import { durationArgument, listArgument, lookbackOption } from '../host/options.js';
import { readNetDev, type InterfaceCounters } from './kernel-counters.js';

const IFF_UP = 0x1;
const IFF_LOOPBACK = 0x8;

export function networkCheck(
  host: HostSources = realHost(),
  history: CounterHistory = sharedCounterHistory(),
): CheckDefinition {
  const maxLookback = history.maxLookbackSeconds;
  return {
    name: 'check_network',
    title: 'Network traffic',
    description:
      'Traffic per network interface: receive and send rates (between calls), totals, errors, drops, link speed and usage of the link, from /proc/net/dev and /sys/class/net.',
    options: {
      device: {
        description: 'Interface name (name= and dev= are the same); comma list, may be repeated; default all.',
        repeat: true,
      },
      name: { description: 'Same as device=.', repeat: true },
      dev: { description: 'Same as device=.', repeat: true },
      exclude: { description: 'Interface names to leave out; comma list, may be repeated.', repeat: true },
      lookback: lookbackOption(300, maxLookback),
    },
    vars: {
      name: { kind: 'string', description: 'Interface name.' },
      device: { kind: 'string', description: 'Interface name (same as name).' },
      mac: { kind: 'string', description: 'Hardware address, empty when there is none.' },
      state: { kind: 'string', description: 'Operational state from the kernel: up, down, unknown, dormant, ...' },
      enabled: { kind: 'bool', description: 'True when the interface is administratively up.' },
      loopback: { kind: 'bool', description: 'True for a loopback interface.' },
      speed: {
        kind: 'number',
        description: 'Link speed in Mbit/s; empty when the kernel does not know it (virtual links).',
      },
      received: { kind: 'size', description: 'Bytes received per second over the lookback.' },
      sent: { kind: 'size', description: 'Bytes sent per second over the lookback.' },
      total: { kind: 'size', description: 'Bytes received and sent per second over the lookback.' },
      usage: {
        kind: 'percent',
        description:
          'Busier direction as a percentage of the link speed (full duplex); empty when the speed is unknown.',
      },
      total_received: { kind: 'size', description: 'Bytes received since the interface came up.' },
      total_sent: { kind: 'size', description: 'Bytes sent since the interface came up.' },
      rx_errors: { kind: 'number', description: 'Receive errors since the interface came up.' },
      tx_errors: { kind: 'number', description: 'Send errors since the interface came up.' },
      rx_drops: { kind: 'number', description: 'Received packets dropped since the interface came up.' },
      tx_drops: { kind: 'number', description: 'Packets to send dropped since the interface came up.' },
      errors: { kind: 'number', description: 'New receive and send errors within the lookback.' },
      drops: { kind: 'number', description: 'New dropped packets (both directions) within the lookback.' },
      lookback: { kind: 'time', description: 'Seconds the rates were measured over.' },
    },
    defaults: {
      warning: 'usage > 80',
      critical: 'usage > 90',
      topSyntax: '${status}: ${list}',
      detailSyntax: '%(name) >%(sent)/s <%(received)/s',
      emptySyntax: '%(status): No network interfaces found',
      emptyState: 'unknown',
    },
    async collect(args, call) {
      const wanted = listArgument(args, 'device', 'name', 'dev');
      const excluded = new Set(listArgument(args, 'exclude'));
      const lookback = durationArgument(args, 'lookback', 300, 1, maxLookback);
      const w = await history.window(
        `network:${host.proc}`,
        async () => flattenCounters(await readNetDev(host.proc), COUNTERS),
        lookback,
        call.signal,
      );
      const names = objectNames(w.current);
      for (const want of wanted)
        if (!names.includes(want)) throw new Error(`no network interface named ${want} (known: ${names.join(', ')})`);
      const chosen = names.filter((n) => (wanted.length === 0 || wanted.includes(n)) && !excluded.has(n));
      return Promise.all(chosen.map((n) => describe(host, n, w)));
    },
    perf: (item) => [
      { object: String(item.name), key: 'received', alias: `${item.name} received`, minimum: 0 },
      { object: String(item.name), key: 'sent', alias: `${item.name} sent`, minimum: 0 },
      ...(item.usage !== undefined
        ? [{ object: String(item.name), key: 'usage', alias: `${item.name} usage`, minimum: 0, maximum: 100 }]
        : []),
      { object: String(item.name), key: 'errors', alias: `${item.name} errors`, minimum: 0 },
      { object: String(item.name), key: 'drops', alias: `${item.name} drops`, minimum: 0 },
    ],
  };
}

const COUNTERS: readonly (keyof InterfaceCounters)[] = [
  'rxBytes',
  'rxPackets',
  'rxErrors',
  'rxDrops',
  'txBytes',
  'txPackets',
  'txErrors',
  'txDrops',
];

async function describe(
  host: HostSources,
  name: string,
  w: Awaited<ReturnType<CounterHistory['window']>>,
): Promise<Values> {
  const cur = (k: string): number => w.current.values.get(`${name}.${k}`) ?? 0;
  const rate = (k: string): number => counterRate(w, `${name}.${k}`) ?? 0;
  const delta = (k: string): number => counterDelta(w, `${name}.${k}`) ?? 0;
  const dir = join(host.sys, 'class', 'net', name);
  const [speedText, state, mac, flagsText] = await Promise.all(
    ['speed', 'operstate', 'address', 'flags'].map((f) =>
      readFile(join(dir, f), 'utf8').then(
        (t) => t.trim(),
        () => undefined,
      ),
    ),
  );
  const speed = speedText !== undefined && Number(speedText) > 0 ? Number(speedText) : undefined;
  const flags = flagsText !== undefined ? Number.parseInt(flagsText, 16) : 0;
  const received = rate('rxBytes');
  const sent = rate('txBytes');
  const item: Record<string, number | string | boolean | undefined> = {
    name,
    device: name,
    mac: mac ?? '',
    state: state ?? 'unknown',
    enabled: (flags & IFF_UP) !== 0,
    loopback: (flags & IFF_LOOPBACK) !== 0 || name === 'lo',
    speed,
    received,
    sent,
    total: received + sent,
    usage: speed !== undefined ? Math.min(100, (Math.max(received, sent) * 8 * 100) / (speed * 1e6)) : undefined,
    total_received: cur('rxBytes'),
    total_sent: cur('txBytes'),
    rx_errors: cur('rxErrors'),
    tx_errors: cur('txErrors'),
    rx_drops: cur('rxDrops'),
    tx_drops: cur('txDrops'),
    errors: delta('rxErrors') + delta('txErrors'),
    drops: delta('rxDrops') + delta('txDrops'),
    lookback: w.seconds,
  };
  return item;
}
