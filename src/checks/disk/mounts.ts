/**
 * Mounted file systems from /proc/self/mounts with their sizes from
 * statfs(2). A mount point listed twice counts once (the last mount wins,
 * as it hides the earlier one). A file system that cannot be stat'ed (gone,
 * no permission) is reported with `error` set instead of failing the list.
 */
import { readFile, statfs } from 'node:fs/promises';
import { firstN } from '../../in-range.js';

export interface Mount {
  device: string;
  mountPoint: string;
  fsType: string;
  options: string[];
}

export interface MountUsage extends Mount {
  /** fixed, remote, ram or pseudo (see classify). */
  kind: 'fixed' | 'remote' | 'ram' | 'pseudo';
  size: number;
  /** Bytes not in use (as root sees it). */
  freeTotal: number;
  /** Bytes available to unprivileged users (what df shows as Avail). */
  available: number;
  inodes: number;
  inodesFree: number;
  error?: string;
}

const REMOTE = new Set([
  'nfs',
  'nfs4',
  'cifs',
  'smb3',
  'smbfs',
  'sshfs',
  'fuse.sshfs',
  'glusterfs',
  'ceph',
  '9p',
  'afs',
  'davfs',
  'fuse.davfs',
]);
const RAM = new Set(['tmpfs', 'ramfs', 'devtmpfs']);
const PSEUDO = new Set([
  'proc',
  'sysfs',
  'devpts',
  'cgroup',
  'cgroup2',
  'securityfs',
  'debugfs',
  'tracefs',
  'pstore',
  'bpf',
  'configfs',
  'fusectl',
  'mqueue',
  'hugetlbfs',
  'autofs',
  'binfmt_misc',
  'rpc_pipefs',
  'nsfs',
  'efivarfs',
  'selinuxfs',
  'overlay_ctl',
  'squashfs',
]);

/** Kind of a file system type: remote, ram, pseudo or fixed (everything else). */
export function classify(fsType: string): MountUsage['kind'] {
  if (REMOTE.has(fsType)) return 'remote';
  if (RAM.has(fsType)) return 'ram';
  if (PSEUDO.has(fsType)) return 'pseudo';
  return 'fixed';
}

/** Parse the mounts file; octal escapes (`\040` for a space) are decoded. */
export function parseMounts(text: string): Mount[] {
  const byPoint = new Map<string, Mount>();
  for (const line of text.split('\n')) {
    const f = firstN(line.trim().split(/\s+/), 4);
    if (!f) continue;
    const [device, mountPoint, fsType, options] = f;
    const m: Mount = {
      device: unescape(device),
      mountPoint: unescape(mountPoint),
      fsType,
      options: options.split(','),
    };
    byPoint.delete(m.mountPoint);
    byPoint.set(m.mountPoint, m);
  }
  return [...byPoint.values()];
}

export async function readMounts(file = '/proc/self/mounts'): Promise<Mount[]> {
  return parseMounts(await readFile(file, 'utf8'));
}

/** Mounts with sizes. Only the mounts `want` accepts are stat'ed. */
export async function mountUsage(want: (m: Mount) => boolean = () => true, file?: string): Promise<MountUsage[]> {
  const mounts = (await readMounts(file)).filter(want);
  return Promise.all(
    mounts.map(async (m): Promise<MountUsage> => {
      const base = { ...m, kind: classify(m.fsType) };
      try {
        const s = await statfs(m.mountPoint);
        return {
          ...base,
          size: s.blocks * s.bsize,
          freeTotal: s.bfree * s.bsize,
          available: s.bavail * s.bsize,
          inodes: s.files,
          inodesFree: s.ffree,
        };
      } catch (err) {
        return {
          ...base,
          size: 0,
          freeTotal: 0,
          available: 0,
          inodes: 0,
          inodesFree: 0,
          error: (err as Error).message,
        };
      }
    }),
  );
}

function unescape(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}
