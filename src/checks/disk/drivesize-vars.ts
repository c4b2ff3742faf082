/**
 * The variables of check_drivesize and the item each mounted file system
 * gives. Beside the agent's own names, those NSClient++ documents for
 * check_drivesize on Linux, with the meaning they have there: `mounted`
 * (its default filter is `mounted = 1`; every listed file system is
 * mounted), `readable` and `writable`, `flags`, `drive_or_id`,
 * `drive_or_name` and `id`, `filesystem`, the `total_*` and `user_used*`
 * forms and the inode counts. `letter`, `removable`, `hotplug`, `erasable`
 * and `media_type` describe Windows volumes (NSClient++ answers them
 * empty or 0 on Linux) and are left out: a filter on them answers that
 * the name is unknown instead of matching by accident.
 */
import type { VarDef } from '../expression/evaluate.js';
import type { MountUsage } from './mounts.js';

export const DRIVESIZE_VARS: Readonly<Record<string, VarDef>> = {
  drive: { kind: 'string', description: 'Mount point, or the path given with drive=.' },
  drive_or_id: { kind: 'string', description: 'The same as drive (NSClient++: the mount point, else the device).' },
  drive_or_name: { kind: 'string', description: 'The same as drive (NSClient++: the mount point, else the device).' },
  mount: { kind: 'string', description: 'Mount point of the file system.' },
  name: { kind: 'string', description: 'Device or source (such as /dev/sda1).' },
  id: { kind: 'string', description: 'Device or source, as name.' },
  fs: { kind: 'string', description: "File system type, such as 'ext4'." },
  filesystem: { kind: 'string', description: "File system type, as fs (such as 'ext4')." },
  type: {
    kind: 'string',
    description: 'fixed, remote (nfs, cifs, ...), ram (tmpfs, ...) or pseudo (proc, sysfs, ...).',
  },
  mounted: {
    kind: 'bool',
    description: "True: every file system listed is mounted (NSClient++'s default filter is mounted = 1).",
  },
  readable: { kind: 'bool', description: 'True when its size could be read (statfs); false with error set.' },
  writable: { kind: 'bool', description: 'True when mounted read-write and its size could be read.' },
  flags: { kind: 'string', description: "'mounted', then 'readable' and 'writable' when they hold, comma separated." },
  size: { kind: 'size', description: 'Size in bytes.' },
  used: { kind: 'size', description: 'Used bytes; used > 90% compares used_pct.', pct: 'used_pct', of: 'size' },
  total_used: { kind: 'size', description: 'Used bytes, as used.', pct: 'total_used_pct', of: 'size' },
  free: {
    kind: 'size',
    description:
      'Free bytes (every free block, those reserved for root included, as NSClient++); free < 10% compares free_pct.',
    pct: 'free_pct',
    of: 'size',
  },
  total_free: { kind: 'size', description: 'Free bytes, as free.', pct: 'total_free_pct', of: 'size' },
  user_free: {
    kind: 'size',
    description: 'Bytes an unprivileged user can still write (df Avail); user_free < 10% compares user_free_pct.',
    pct: 'user_free_pct',
    of: 'size',
  },
  user_used: {
    kind: 'size',
    description: 'The size less user_free: what an unprivileged user cannot write.',
    pct: 'user_used_pct',
    of: 'size',
  },
  used_pct: { kind: 'percent', description: 'Used share of the size in percent (used_pct + free_pct = 100).' },
  total_used_pct: { kind: 'percent', description: 'Used share of the size in percent, as used_pct.' },
  free_pct: { kind: 'percent', description: 'Free share of the size in percent.' },
  total_free_pct: { kind: 'percent', description: 'Free share of the size in percent, as free_pct.' },
  user_free_pct: {
    kind: 'percent',
    description: 'Share of the size an unprivileged user can still write, in percent.',
  },
  user_used_pct: { kind: 'percent', description: '100 less user_free_pct.' },
  inodes_total: { kind: 'number', description: 'Inodes of the file system (0 when it has no inode count).' },
  inodes_free: { kind: 'number', description: 'Free inodes.' },
  inodes_used: { kind: 'number', description: 'Used inodes.' },
  inodes_used_pct: {
    kind: 'percent',
    description: 'Used inodes in percent (0 when the file system has no inode count).',
  },
  inodes_free_pct: {
    kind: 'percent',
    description: 'Free inodes in percent (0 when the file system has no inode count).',
  },
  readonly: { kind: 'bool', description: 'True when mounted read-only.' },
  bind: {
    kind: 'bool',
    description:
      'True for a bind mount (a folder of a file system, or one mounted again); listed with bind-mounts only.',
  },
  error: { kind: 'string', description: 'Why the size could not be read; empty when it could.' },
};

/** The item of one file system, named `drive` (the mount point, or the path asked for). */
export function item(drive: string, u: MountUsage): Record<string, string | number | boolean> {
  const used = Math.max(0, u.size - u.freeTotal);
  const pct = (n: number, of = u.size): number => (of > 0 ? (n / of) * 100 : 0);
  const readable = u.error === undefined;
  const writable = readable && !u.options.includes('ro');
  const inodesUsed = Math.max(0, u.inodes - u.inodesFree);
  return {
    drive,
    drive_or_id: drive,
    drive_or_name: drive,
    mount: u.mountPoint,
    name: u.device,
    id: u.device,
    fs: u.fsType,
    filesystem: u.fsType,
    type: u.kind,
    mounted: true,
    readable,
    writable,
    flags: ['mounted', ...(readable ? ['readable'] : []), ...(writable ? ['writable'] : [])].join(','),
    size: u.size,
    used,
    total_used: used,
    free: u.freeTotal,
    total_free: u.freeTotal,
    user_free: u.available,
    user_used: Math.max(0, u.size - u.available),
    used_pct: pct(used),
    total_used_pct: pct(used),
    free_pct: pct(u.freeTotal),
    total_free_pct: pct(u.freeTotal),
    user_free_pct: pct(u.available),
    user_used_pct: u.size > 0 ? 100 - pct(u.available) : 0,
    inodes_total: u.inodes,
    inodes_free: u.inodesFree,
    inodes_used: inodesUsed,
    inodes_used_pct: pct(inodesUsed, u.inodes),
    inodes_free_pct: pct(u.inodesFree, u.inodes),
    readonly: u.options.includes('ro'),
    bind: u.bind,
    error: u.error ?? '',
  };
}
