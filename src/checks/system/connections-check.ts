/**
 * check_connections: TCP and UDP sockets per state and address family,
 * from /proc/net/{tcp,tcp6,udp,udp6}. The state column is hexadecimal
 * (SNClient+ reads it as decimal and so loses LISTEN, CLOSING and
 * NEW_SYN_RECV). A family the kernel lacks (IPv6 disabled: no tcp6) counts
 * zero; a missing /proc/net/tcp is an error.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckDefinition } from '../engine.js';
import type { VarDef, Values } from '../expression/evaluate.js';
import { realHost, type HostSources } from '../host/host-sources.js';
import { firstN } from '../../in-range.js';

/** Kernel TCP states by their hex code (include/net/tcp_states.h). */
export const TCP_STATES: Readonly<Record<number, string>> = {
  0x01: 'established',
  0x02: 'syn_sent',
  0x03: 'syn_recv',
  0x04: 'fin_wait1',
  0x05: 'fin_wait2',
  0x06: 'time_wait',
  0x07: 'close',
  0x08: 'close_wait',
  0x09: 'last_ack',
  0x0a: 'listen',
  0x0b: 'closing',
  0x0c: 'new_syn_recv',
};
const STATE_NAMES = Object.values(TCP_STATES);

/** Sockets per state name in one /proc/net/{tcp,udp}[6] text. */
export function countSocketStates(text: string): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries(STATE_NAMES.map((s) => [s, 0]));
  const lines = text.split('\n');
  for (const line of lines.slice(1)) {
    const f = firstN(line.trim().split(/\s+/), 4);
    if (!f) continue;
    const name = TCP_STATES[Number.parseInt(f[3], 16)];
    if (name) out[name] = (out[name] ?? 0) + 1;
  }
  return out;
}

export function connectionsCheck(host: HostSources = realHost()): CheckDefinition {
  const stateVars: Record<string, VarDef> = Object.fromEntries(
    STATE_NAMES.map((s) => [
      s,
      {
        kind: 'number',
        description: `Sockets in state ${s.toUpperCase()}${s === 'close' ? ' (for UDP: unconnected sockets)' : ''}.`,
      } satisfies VarDef,
    ]),
  );
  return {
    name: 'check_connections',
    title: 'Connections',
    description:
      'TCP and UDP sockets per state, per protocol and address family (rows tcp/udp × ipv4/ipv6, tcp and udp over both families, and the total), from /proc/net.',
    vars: {
      protocol: { kind: 'string', description: 'tcp, udp or total (both).' },
      inet: { kind: 'string', description: 'ipv4, ipv6 or all.' },
      total: { kind: 'number', description: 'Sockets in the row.' },
      total_connections: { kind: 'number', description: 'Same as total (NSClient++ name).' },
      ...stateVars,
    },
    defaults: {
      filter: "protocol = 'total'",
      warning: 'total > 1000',
      critical: 'total > 2000',
      topSyntax: '${status}: ${list}',
      detailSyntax:
        '${protocol} ${inet}: ${total} (listen ${listen}, established ${established}, time_wait ${time_wait})',
      emptySyntax: '%(status): No connections found',
      emptyState: 'unknown',
    },
    async collect() {
      const rows: Values[] = [];
      const sum = (list: Record<string, number>[]): Record<string, number> =>
        Object.fromEntries(STATE_NAMES.map((s) => [s, list.reduce((a, r) => a + (r[s] ?? 0), 0)]));
      const row = (protocol: string, inet: string, counts: Record<string, number>): Values => {
        const total = STATE_NAMES.reduce((a, s) => a + (counts[s] ?? 0), 0);
        return { protocol, inet, total, total_connections: total, ...counts };
      };
      const per: Record<string, Record<string, number>[]> = { tcp: [], udp: [] };
      for (const protocol of ['tcp', 'udp'] as const) {
        for (const [inet, file] of [
          ['ipv4', protocol],
          ['ipv6', `${protocol}6`],
        ] as const) {
          const path = join(host.proc, 'net', file);
          const text = await readFile(path, 'utf8').catch((err: unknown) => {
            const e = err as NodeJS.ErrnoException;
            if (e.code === 'ENOENT' && inet === 'ipv6') return '';
            throw new Error(`cannot read ${path}: ${e.message}`);
          });
          const counts = countSocketStates(text);
          per[protocol]?.push(counts);
          rows.push(row(protocol, inet, counts));
        }
        rows.push(row(protocol, 'all', sum(per[protocol] ?? [])));
      }
      rows.push(row('total', 'all', sum([...(per.tcp ?? []), ...(per.udp ?? [])])));
      return rows;
    },
    perf: (item) => {
      const prefix = item.protocol === 'total' ? '' : `${item.protocol}_${item.inet}_`;
      return ['total', ...STATE_NAMES].map((k) => ({
        object: `${item.protocol} ${item.inet}`,
        key: k,
        alias: `${prefix}${k}`,
        minimum: 0,
      }));
    },
  };
}
