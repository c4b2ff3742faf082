/**
 * check_memory (physical and swap from /proc/meminfo), check_uptime
 * (/proc/uptime) and check_os_version (uname and /etc/os-release).
 */
import os from 'node:os';
import { ArgumentError } from '../arguments.js';
import type { CheckDefinition } from '../engine.js';
import type { VarDef } from '../expression/evaluate.js';
import { readMeminfo, readOsRelease, readUptime } from './proc-readers.js';

const SIZE_VARS: Readonly<Record<string, VarDef>> = {
  size: { kind: 'size', description: 'Total size in bytes.' },
  used: { kind: 'size', description: 'Used bytes; used > 80% compares used_pct.', pct: 'used_pct', of: 'size' },
  free: { kind: 'size', description: 'Free bytes; free < 10% compares free_pct.', pct: 'free_pct', of: 'size' },
  used_pct: { kind: 'percent', description: 'Used share in percent.' },
  free_pct: { kind: 'percent', description: 'Free share in percent.' },
};

/**
 * check_memory. Physical memory counts MemAvailable as free (what `free`
 * shows as available), so used = MemTotal - MemAvailable; swap uses
 * SwapTotal and SwapFree.
 */
export function memoryCheck(root?: string): CheckDefinition {
  return {
    name: 'check_memory',
    title: 'Memory',
    description: 'Physical memory and swap: size, used and free (physical free is MemAvailable), in bytes and percent.',
    options: {
      type: {
        description: 'Which memory to check: physical or swap; may be repeated.',
        default: 'physical, swap',
        repeat: true,
      },
    },
    vars: { type: { kind: 'string', description: "'physical' or 'swap'." }, ...SIZE_VARS },
    defaults: {
      warning: 'used > 80%',
      critical: 'used > 90%',
      topSyntax: '${status}: ${list}',
      detailSyntax: '%(type) = %(used) of %(size) (%(used_pct)%)',
      emptySyntax: '%(status): No memory types matched',
      emptyState: 'unknown',
    },
    async collect(args) {
      const types = args
        .all('type')
        .flatMap((t) => t.split(','))
        .map((t) => t.trim().toLowerCase())
        .filter(Boolean);
      for (const t of types)
        if (t !== 'physical' && t !== 'swap') throw new ArgumentError(`type=${t} is not physical or swap`);
      const m = readMeminfo(root);
      const items = [];
      const total = m.MemTotal ?? 0;
      const available = m.MemAvailable ?? (m.MemFree ?? 0) + (m.Buffers ?? 0) + (m.Cached ?? 0);
      if (types.length === 0 || types.includes('physical')) items.push(sizes('physical', total, available));
      if (types.length === 0 || types.includes('swap')) items.push(sizes('swap', m.SwapTotal ?? 0, m.SwapFree ?? 0));
      return items;
    },
    perf: (item) => [
      { object: String(item.type), key: 'used', alias: String(item.type), minimum: 0, maximum: item.size as number },
      { object: String(item.type), key: 'used_pct', alias: `${item.type} %`, minimum: 0, maximum: 100 },
    ],
  };
}

/**
 * An item with size, used, free and both percentages. An empty total (a
 * host without swap) is 0% used and 100% free: nothing of it is in use, so
 * neither `used > 80%` nor `free < 5%` holds.
 */
export function sizes(type: string, size: number, free: number): Record<string, string | number> {
  const used = Math.max(0, size - free);
  return {
    type,
    size,
    used,
    free,
    used_pct: size > 0 ? (used / size) * 100 : 0,
    free_pct: size > 0 ? (free / size) * 100 : 100,
  };
}

export function uptimeCheck(root?: string): CheckDefinition {
  return {
    name: 'check_uptime',
    title: 'Uptime',
    description: 'Time since boot from /proc/uptime, and the boot time.',
    vars: {
      uptime: { kind: 'time', description: 'Seconds since boot (1h, 2d ... in expressions).' },
      boot: { kind: 'date', description: 'Boot time (compare with -1d for a day ago).' },
    },
    defaults: {
      // A reboot is news, not an outage: warn for 3 minutes after boot,
      // critical for the first one. NSClient++'s 2d/1d made every host
      // CRITICAL for a day after each boot (README: decisions).
      warning: 'uptime < 180s',
      critical: 'uptime < 60s',
      topSyntax: '${status}: ${list}',
      detailSyntax: 'uptime: ${uptime}, boot: ${boot} (UTC)',
      emptySyntax: '%(status): No uptime',
      emptyState: 'unknown',
    },
    async collect(_args, call) {
      const up = readUptime(root);
      return [{ uptime: up, boot: Math.round(call.now - up) }];
    },
    perf: () => [{ object: 'uptime', key: 'uptime', alias: 'uptime' }],
  };
}

export function osVersionCheck(osReleaseFile?: string): CheckDefinition {
  return {
    name: 'check_os_version',
    title: 'Operating system version',
    description: 'Kernel and distribution: uname fields and /etc/os-release.',
    vars: {
      name: { kind: 'string', description: "Kernel name, such as 'Linux'." },
      release: { kind: 'string', description: "Kernel release, such as '6.1.0-18-amd64'." },
      version: { kind: 'string', description: 'Kernel version string.' },
      machine: { kind: 'string', description: "Machine, such as 'x86_64'." },
      hostname: { kind: 'string', description: 'Host name.' },
      os: { kind: 'string', description: "Distribution id from os-release, such as 'debian'." },
      os_version: { kind: 'string', description: "Distribution version id, such as '12'." },
      pretty: { kind: 'string', description: 'Distribution pretty name.' },
      major: { kind: 'number', description: 'Kernel major version.' },
      minor: { kind: 'number', description: 'Kernel minor version.' },
    },
    defaults: {
      topSyntax: '${status}: ${list}',
      detailSyntax: '%(pretty) (%(name) %(release) %(machine))',
      emptySyntax: '%(status): No version',
      emptyState: 'unknown',
    },
    async collect() {
      const rel = await readOsRelease(osReleaseFile);
      const release = os.release();
      const [major = 0, minor = 0] = release.split(/[.-]/).map(Number);
      return [
        {
          name: os.type(),
          release,
          version: os.version(),
          machine: os.machine(),
          hostname: os.hostname(),
          os: rel.ID ?? '',
          os_version: rel.VERSION_ID ?? '',
          pretty: rel.PRETTY_NAME ?? os.type(),
          major,
          minor,
        },
      ];
    },
  };
}
