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
import { mountUsage, readMounts } from './mounts.js';
import { DRIVESIZE_VARS, item } from './drivesize-vars.js';

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
    vars: DRIVESIZE_VARS,
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
      const mounts = readMounts(mountsFile);
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
      const usage = await mountUsage((m) => (all ? binds || !m.bind : wanted.has(m.mountPoint)), mountsFile, mounts);
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
