/**
 * Mounted file systems from /proc/self/mountinfo (the agent's own view:
 * statfs runs in it) with their sizes from statfs(2). A mount point listed
 * twice counts once (the last mount wins, as it hides the earlier one). A
 * file system is counted once: a mount that shows a sub-tree of its file
 * system (a bind mount of a folder, as systemd's BindPaths= and
 * PrivateTmp= make) or that shows again a file system already mounted
 * elsewhere (the same device and root) is marked `bind`, and left out
 * unless asked for, so the agent under its hardened unit counts the disks
 * the command line counts. A file system that cannot be stat'ed (gone, no
 * permission) is reported with `error` set instead of failing the list.
 */
import { readFileSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { parseMountinfo } from './mountinfo.js';

export interface Mount {
  device: string;
  mountPoint: string;
  fsType: string;
  options: string[];
  /** A sub-tree of a file system, or one mounted again elsewhere: not a disk of its own. */
  bind: boolean;
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

/** The mounts of a mountinfo text, each mount point once, with `bind` set on those that add no file system. */
export function parseMounts(text: string): Mount[] {
  const byPoint = new Map<string, Mount & { id: string }>();
  for (const e of parseMountinfo(text)) {
    byPoint.delete(e.mountPoint);
    byPoint.set(e.mountPoint, {
      device: e.device,
      mountPoint: e.mountPoint,
      fsType: e.fsType,
      options: e.options,
      bind: e.options.includes('bind'),
      id: `${e.devId} ${e.root}`,
    });
  }
  // The same file system shown again at another place: the first place it is mounted keeps it.
  const seen = new Set<string>();
  return [...byPoint.values()].map(({ id, ...m }) => {
    const again = seen.has(id);
    seen.add(id);
    return again ? { ...m, bind: true } : m;
  });
}

/**
 * The mount table, read synchronously: /proc/self/mountinfo is made in
 * memory as it is read, and one read costs less than the thread-pool round
 * trips of an asynchronous one. statfs stays asynchronous: it asks the file
 * system, and a hung network mount must not hold the agent.
 */
export function readMounts(file = '/proc/self/mountinfo'): Mount[] {
  return parseMounts(readFileSync(file, 'utf8'));
}

/** Mounts with sizes. Only the mounts `want` accepts are stat'ed; `mounts`: the table when the caller has read it. */
export async function mountUsage(
  want: (m: Mount) => boolean = () => true,
  file?: string,
  mounts: readonly Mount[] = readMounts(file),
): Promise<MountUsage[]> {
  return Promise.all(
    mounts.filter(want).map(async (m): Promise<MountUsage> => {
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
