/**
 * The helper files of a settings rewrite (atomic-rewrite.ts): the temp file
 * a new copy is written to, in the same folder as the settings file, named
 * `.<name>.<pid>.<random>.tmp`, and the removal of those a killed writer of
 * the same file left behind (their names carry the dead writer's pid).
 * Also removed: `.<name>.lock` files of dead writers, which versions before
 * the checked replace took the edit lock with. Messages never name a
 * helper file.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { getLogger } from '../../log.js';

const log = getLogger('agent:settings:edit-ini');

/** The prefix of every helper file of `target`: `.<name>`, shortened so that suffixes fit in 255 bytes. */
function helperPrefix(target: string): string {
  return `.${basename(target).slice(0, 60)}`;
}

/** A temp file name for a new copy of `target`, in its folder; it carries our pid so that a later writer can tell it was left by a dead one. */
export function tempPathFor(target: string): string {
  return join(dirname(target), `${helperPrefix(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

/**
 * Remove the temp files (and old lock files) of `target` whose writer
 * process is gone. Failures are logged at debug level only: leftovers cost
 * disk space, not correctness.
 */
export async function removeLeftovers(target: string): Promise<number> {
  const folder = dirname(target);
  const prefix = helperPrefix(target);
  // A temp file and a lock moved aside for removal carry their writer's pid in the name; a lock, in its first line.
  const leftover = new RegExp(
    `^${escapeRegExp(prefix)}\\.(?:(\\d+)\\.[0-9a-f]{12}\\.tmp|lock\\.stale\\.(\\d+)\\.[0-9a-f]{12}|lock)$`,
  );
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const m = leftover.exec(name);
    if (m === null) continue;
    const pid = m[1] ?? m[2] ?? (await lockHolder(join(folder, name)));
    if (pid === undefined || Number(pid) === process.pid || isAlive(Number(pid))) continue;
    try {
      await unlink(join(folder, name));
      removed++;
    } catch (err) {
      log.debug(`cannot remove a leftover of a killed writer of ${target}: ${(err as Error).message}`);
    }
  }
  if (removed > 0) log.info(`removed ${removed} temp file(s) left by a killed writer of ${target}`);
  return removed;
}

/** The pid an old lock file names on its first line ('0' when it names none). */
async function lockHolder(file: string): Promise<string | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const first = text.split('\n', 1)[0] ?? '';
  return /^\d+$/.test(first) ? first : '0';
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
