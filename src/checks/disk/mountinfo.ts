/**
 * The mount table as the kernel keeps it: /proc/1/mountinfo (the host's
 * view when the agent may read it), else /proc/self/mountinfo. Octal
 * escapes are decoded; `options` joins the per-mount and the super-block
 * options, and `bind` is added when the mount shows a sub-tree of its file
 * system (its root is not `/`, nor the btrfs subvolume it names).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { firstN } from '../../in-range.js';

export interface MountEntry {
  mountPoint: string;
  device: string;
  fsType: string;
  /** major:minor of the device. */
  devId: string;
  root: string;
  options: string[];
}

export function parseMountinfo(text: string): MountEntry[] {
  const out: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const dash = line.indexOf(' - ');
    if (dash < 0) continue;
    const a = firstN(line.slice(0, dash).split(' '), 6);
    const [fsType, device, superOptions = ''] = line.slice(dash + 3).split(' ');
    if (!a || fsType === undefined || device === undefined) continue;
    const [, , devId, rawRoot, mountPoint, mountOptions] = a;
    const options = new Set(mountOptions.split(','));
    for (const o of superOptions.split(',')) if (o !== '' && o !== 'rw' && o !== 'ro') options.add(o);
    const root = unescape(rawRoot);
    // A btrfs subvolume's root is its own path (subvol=/@home): mounted whole, not a sub-tree.
    const subvol = superOptions
      .split(',')
      .find((o) => o.startsWith('subvol='))
      ?.slice('subvol='.length);
    if (root !== '/' && root !== subvol) options.add('bind');
    out.push({
      mountPoint: unescape(mountPoint),
      devId,
      root,
      fsType,
      device: unescape(device),
      options: [...options],
    });
  }
  return out;
}

/** Read the mount table; throws naming the files when none can be read. */
export async function readMountinfo(proc: string): Promise<MountEntry[]> {
  for (const f of [join(proc, '1', 'mountinfo'), join(proc, 'self', 'mountinfo')]) {
    const text = await readFile(f, 'utf8').catch(() => undefined);
    if (text !== undefined && text.trim() !== '') return parseMountinfo(text);
  }
  throw new Error(`cannot read ${join(proc, '1', 'mountinfo')} or ${join(proc, 'self', 'mountinfo')}`);
}

function unescape(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}
