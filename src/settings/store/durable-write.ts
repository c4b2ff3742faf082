/**
 * The durable parts of a settings rewrite (atomic-rewrite.ts): a new copy
 * written, fsynced and given the original's mode and owner, and the folder
 * fsynced after the rename so the rename survives a crash.
 */
import { chmod, chown, open } from 'node:fs/promises';
import { errorMessage } from '../../errors.js';
import { getLogger } from '../../log.js';

const log = getLogger('agent:settings:edit-ini');

/** Write, fsync and close the temp file with the original's mode (and owner when running as root). */
export async function writeTemp(
  temp: string,
  text: string | Buffer,
  mode: number | null,
  owner: { uid: number; gid: number } | null,
): Promise<void> {
  const handle = await open(temp, 'wx', mode ?? 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  if (mode !== null) await chmod(temp, mode); // open() applied the umask
  if (owner !== null && process.getuid?.() === 0) await chown(temp, owner.uid, owner.gid);
}

/** Make the rename durable. Some platforms cannot fsync a folder; the rename is done either way. */
export async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (err) {
    log.debug(`cannot fsync folder ${folder}: ${errorMessage(err)}`);
  }
}
