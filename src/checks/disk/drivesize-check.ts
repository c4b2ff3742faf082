/**
 * check_drivesize: one item per mounted file system. As NSClient++ counts
 * them, `free` is every free block (statfs bfree, blocks reserved for root
 * included) and `used` the rest of the size, so used_pct + free_pct = 100
 * and `used > 80%` fires when df's Use% is past 80 (df leaves the reserved
 * blocks out of both). `user_free` is what an unprivileged user can still
 * write (bavail, df's Avail), with its own percentage. `drive=` takes a
 * mount point, or any path, which checks the file system that holds it
 * (as check_disk -p and NSClient++ do), named by the path given.
 */
import type { CheckDefinition } from '../engine.js';
import { realpath } from 'node:fs/promises';
import { mountUsage, readMounts, type MountUsage } from './mounts.js';

export function drivesizeCheck(mountsFile?: string): CheckDefinition {
  return {
    name: 'check_drivesize',
    title: 'Disk space',
    description:
      'Space on each mounted file system (fixed and remote ones by default, each once: bind mounts left out), from /proc/self/mountinfo and statfs.',
    options: {
      drive: {
        description:
          'A mount point (such as / or /var) or any path (the file system holding it); may be repeated. Without it every mount passes to the filter. drive=* means all.',
        repeat: true,
      },
      'bind-mounts': {
        description:
          'Also list bind mounts: a folder of a file system mounted elsewhere (as systemd units do), or a file system mounted a second time. Left out by default, so each file system counts once.',
        flag: true,
      },
    },
    vars: {
      drive: { kind: 'string', description: 'Mount point, or the path given with drive=.' },
      mount: { kind: 'string', description: 'Mount point of the file system.' },
      name: { kind: 'string', description: 'Device or source (such as /dev/sda1).' },
      fs: { kind: 'string', description: "File system type, such as 'ext4'." },
      type: {
        kind: 'string',
        description: 'fixed, remote (nfs, cifs, ...), ram (tmpfs, ...) or pseudo (proc, sysfs, ...).',
      },
      size: { kind: 'size', description: 'Size in bytes.' },
      used: { kind: 'size', description: 'Used bytes; used > 90% compares used_pct.', pct: 'used_pct', of: 'size' },
      free: {
        kind: 'size',
        description:
          'Free bytes (every free block, those reserved for root included, as NSClient++); free < 10% compares free_pct.',
        pct: 'free_pct',
        of: 'size',
      },
      user_free: {
        kind: 'size',
        description: 'Bytes an unprivileged user can still write (df Avail); user_free < 10% compares user_free_pct.',
        pct: 'user_free_pct',
        of: 'size',
      },
      used_pct: { kind: 'percent', description: 'Used share of the size in percent (used_pct + free_pct = 100).' },
      free_pct: { kind: 'percent', description: 'Free share of the size in percent.' },
      user_free_pct: {
        kind: 'percent',
        description: 'Share of the size an unprivileged user can still write, in percent.',
      },
      inodes_used_pct: {
        kind: 'percent',
        description: 'Used inodes in percent (0 when the file system has no inode count).',
      },
      readonly: { kind: 'bool', description: 'True when mounted read-only.' },
      bind: {
        kind: 'bool',
        description:
          'True for a bind mount (a folder of a file system, or one mounted again); listed with bind-mounts only.',
      },
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
      const drives = args
        .all('drive')
        .flatMap((d) => d.split(','))
        .map((d) => d.trim())
        .filter(Boolean);
      const all = drives.length === 0 || drives.includes('*') || drives.includes('all-drives');
      const binds = args.flag('bind-mounts');
      const mounts = await readMounts(mountsFile);
      const points = new Set(mounts.map((m) => m.mountPoint));
      // A path's holder is a file system of its own, as on the command line, not a bind mount above it.
      const holders = new Set(mounts.filter((m) => binds || !m.bind).map((m) => m.mountPoint));
      // A path that is not a mount point: the file system that holds it (the longest mount point above its real path).
      const holder = new Map<string, string>();
      for (const d of all ? [] : drives) {
        if (points.has(d)) continue;
        const real = await realpath(d).catch(() => undefined);
        if (real === undefined) throw new Error(`not a mount point or an existing path: ${d}`);
        const above = [...holders]
          .filter((p) => p === '/' || real === p || real.startsWith(`${p}/`))
          .sort((a, b) => b.length - a.length)[0];
        if (above === undefined) throw new Error(`no mounted file system holds ${d}`);
        holder.set(d, above);
      }
      const wanted = new Set([...drives, ...holder.values()]);
      const usage = await mountUsage((m) => (all ? binds || !m.bind : wanted.has(m.mountPoint)), mountsFile);
      const byPoint = new Map(usage.map((u) => [u.mountPoint, u]));
      if (all) return usage.map((u) => item(u.mountPoint, u));
      return drives.flatMap((d) => {
        const u = byPoint.get(holder.get(d) ?? d);
        return u ? [item(d, u)] : [];
      });
    },
    perf: (item) => [
      {
        object: String(item.drive),
        key: 'used',
        alias: `${item.drive} used`,
        minimum: 0,
        maximum: item.size as number,
      },
      { object: String(item.drive), key: 'used_pct', alias: `${item.drive} used %`, minimum: 0, maximum: 100 },
    ],
  };
}

function item(drive: string, u: MountUsage): Record<string, string | number | boolean> {
  const used = Math.max(0, u.size - u.freeTotal);
  const pct = (n: number): number => (u.size > 0 ? (n / u.size) * 100 : 0);
  return {
    drive,
    mount: u.mountPoint,
    name: u.device,
    fs: u.fsType,
    type: u.kind,
    size: u.size,
    used,
    free: u.freeTotal,
    user_free: u.available,
    used_pct: pct(used),
    free_pct: u.size > 0 ? pct(u.freeTotal) : 0,
    user_free_pct: pct(u.available),
    inodes_used_pct: u.inodes > 0 ? ((u.inodes - u.inodesFree) / u.inodes) * 100 : 0,
    readonly: u.options.includes('ro'),
    bind: u.bind,
    error: u.error ?? '',
  };
}
