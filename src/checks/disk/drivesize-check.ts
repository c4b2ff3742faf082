/**
 * check_drivesize: one item per mounted file system. `used` is what df
 * shows as Used (size - free blocks), `free` what df shows as Avail (bytes
 * an unprivileged user can still write), and the percentages are of the size.
 */
import type { CheckDefinition } from '../engine.js';
import { mountUsage } from './mounts.js';

export function drivesizeCheck(mountsFile?: string): CheckDefinition {
  return {
    name: 'check_drivesize',
    title: 'Disk space',
    description: 'Space on each mounted file system (fixed and remote ones by default), from /proc/self/mounts and statfs.',
    options: {
      drive: { description: 'A mount point to check (such as / or /var); may be repeated. Without it every mount passes to the filter. drive=* means all.', repeat: true },
    },
    vars: {
      drive: { kind: 'string', description: 'Mount point.' },
      name: { kind: 'string', description: 'Device or source (such as /dev/sda1).' },
      fs: { kind: 'string', description: "File system type, such as 'ext4'." },
      type: { kind: 'string', description: "fixed, remote (nfs, cifs, ...), ram (tmpfs, ...) or pseudo (proc, sysfs, ...)." },
      size: { kind: 'size', description: 'Size in bytes.' },
      used: { kind: 'size', description: 'Used bytes; used > 90% compares used_pct.', pct: 'used_pct', of: 'size' },
      free: { kind: 'size', description: 'Bytes available to unprivileged users; free < 10% compares free_pct.', pct: 'free_pct', of: 'size' },
      used_pct: { kind: 'percent', description: 'Used share of the size in percent.' },
      free_pct: { kind: 'percent', description: 'Free share of the size in percent.' },
      inodes_used_pct: { kind: 'percent', description: 'Used inodes in percent (0 when the file system has no inode count).' },
      readonly: { kind: 'bool', description: 'True when mounted read-only.' },
      error: { kind: 'string', description: 'Why the size could not be read; empty when it could.' },
    },
    defaults: {
      filter: "type in ('fixed', 'remote') and size > 0",
      warning: 'used > 80%',
      critical: 'used > 90%',
      topSyntax: '${status}: ${problem_list}',
      okSyntax: '%(status): All %(count) drive(s) are ok',
      detailSyntax: '%(drive): %(used)/%(size) used',
      emptySyntax: '%(status): No drives found',
      emptyState: 'unknown',
    },
    async collect(args) {
      const drives = args.all('drive').flatMap((d) => d.split(',')).map((d) => d.trim()).filter(Boolean);
      const all = drives.length === 0 || drives.includes('*') || drives.includes('all-drives');
      const usage = await mountUsage((m) => all || drives.includes(m.mountPoint), mountsFile);
      const missing = all ? [] : drives.filter((d) => !usage.some((u) => u.mountPoint === d));
      if (missing.length > 0) throw new Error(`not a mount point: ${missing.join(', ')}`);
      return usage.map((u) => {
        const used = Math.max(0, u.size - u.freeTotal);
        return {
          drive: u.mountPoint,
          name: u.device,
          fs: u.fsType,
          type: u.kind,
          size: u.size,
          used,
          free: u.available,
          used_pct: u.size > 0 ? (used / u.size) * 100 : 0,
          free_pct: u.size > 0 ? (u.available / u.size) * 100 : 0,
          inodes_used_pct: u.inodes > 0 ? ((u.inodes - u.inodesFree) / u.inodes) * 100 : 0,
          readonly: u.options.includes('ro'),
          error: u.error ?? '',
        };
      });
    },
    perf: (item) => [
      { object: String(item.drive), key: 'used', alias: `${item.drive} used`, minimum: 0, maximum: item.size as number },
      { object: String(item.drive), key: 'used_pct', alias: `${item.drive} used %`, minimum: 0, maximum: 100 },
    ],
  };
}
