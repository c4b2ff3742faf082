/**
 * The last step of a settings rewrite (atomic-rewrite.ts), and the one
 * thing that keeps concurrent writers from losing each other's changes:
 * put the new copy in place of the target only while the target still is
 * the file that was read. A plain rename cannot promise that: a save by
 * rename (another edit of ours in another process, an editor, `git
 * checkout`) that lands between the writer's last check and its rename is
 * replaced, and its text is in no file. With the addon
 * (dist/bin/rename-exchange.node, src/settings/store/rename-exchange-c/) the
 * new copy and the target are exchanged in one step (renameat2
 * RENAME_EXCHANGE), and what came out is looked at: not the file read, or
 * written since, and it is exchanged back and the edit reads again. A new
 * file is created with RENAME_NOREPLACE, so a file that appeared meanwhile
 * is never overwritten. Without the addon (a build without a C compiler)
 * or on a filesystem that lacks renameat2's flags, the rename is plain:
 * only the check just before it remains, and the agent says so once.
 */
import { lstatSync, renameSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { getSystemErrorMessage, getSystemErrorName } from 'node:util';
import { loadAddon } from '../../native-addon.js';
import { PACKAGE_ROOT } from '../../package-root.js';
import { contentIdentityOf } from './file-identity.js';
import { getLogger } from '../../log.js';

interface RenameAddon {
  rename2: (from: string, to: string, flags: number) => number;
}

export const RENAME_EXCHANGE_ADDON = join(PACKAGE_ROOT, 'dist/bin/rename-exchange.node');

const RENAME_NOREPLACE = 1;
const RENAME_EXCHANGE = 2;
const EEXIST = 17;
/**
 * What a kernel or filesystem without the flags answers, or a seccomp filter that does not know
 * renameat2 (EPERM, ENOSYS): the plain rename is used then, and says so itself if it is refused too.
 */
const UNSUPPORTED = new Set([1 /* EPERM */, 22 /* EINVAL */, 38 /* ENOSYS */, 95 /* EOPNOTSUPP */]);

/** The addon, loaded at the first replace; null when it is not there or does not load. */
function loadRenameAddon(): RenameAddon | null {
  return loadAddon<RenameAddon>(RENAME_EXCHANGE_ADDON, 'rename2');
}

/** True when replaces are checked in the kernel (the addon loaded); for tests and the docs. */
export function replaceIsChecked(): boolean {
  return loadRenameAddon() !== null;
}

/**
 * Put `temp` at `target` when the target still is the file read (`read`:
 * its contentIdentityOf then; null: there was none, and there must be none).
 * 'conflict' leaves the target as the other writer made it and `temp`
 * removed. Synchronous: nothing else of this process runs in between.
 */
export function replaceIfUnchanged(temp: string, target: string, read: string | null): 'replaced' | 'conflict' {
  const own = loadRenameAddon();
  if (own === null) return plainRename(temp, target);
  if (read === null) {
    const errno = own.rename2(temp, target, RENAME_NOREPLACE);
    if (errno === 0) return 'replaced';
    if (errno === EEXIST) return removed(temp, 'conflict');
    if (UNSUPPORTED.has(errno)) return plainRename(temp, target);
    throw errnoError(errno, 'rename');
  }
  const ours = contentIdentityOf(lstatSync(temp, { bigint: true }));
  const errno = own.rename2(temp, target, RENAME_EXCHANGE);
  if (UNSUPPORTED.has(errno)) return plainRename(temp, target);
  if (errno !== 0) throw errnoError(errno, 'rename');
  // `temp` now names what was at the target a moment ago.
  const out = lstatSync(temp, { bigint: true, throwIfNoEntry: false });
  if (out !== undefined && contentIdentityOf(out) === read) return removed(temp, 'replaced');
  giveBack(own, temp, target, ours);
  return 'conflict';
}

/**
 * Undo an exchange that took out another writer's file: exchange again, so
 * the target is that file once more and `temp` ours, which is removed. When
 * yet another save replaced ours in between, that save is the newest: it
 * goes back to the target instead.
 */
function giveBack(own: RenameAddon, temp: string, target: string, ours: string): void {
  const errno = own.rename2(temp, target, RENAME_EXCHANGE);
  if (errno !== 0) throw errnoError(errno, 'rename');
  const back = lstatSync(temp, { bigint: true, throwIfNoEntry: false });
  if (back === undefined) return;
  if (contentIdentityOf(back) === ours) unlinkSync(temp);
  else renameSync(temp, target);
}

let toldPlain = false;

function plainRename(temp: string, target: string): 'replaced' {
  if (!toldPlain) {
    toldPlain = true;
    getLogger('agent:settings:edit-ini').warning(
      `settings edits of ${target} are checked against other writers only just before the rename: the rename-exchange addon is not built, or the filesystem has no renameat2 exchange; two writers that rename in the same instant can lose one change`,
    );
  }
  renameSync(temp, target);
  return 'replaced';
}

function removed(temp: string, result: 'replaced' | 'conflict'): 'replaced' | 'conflict' {
  unlinkSync(temp);
  return result;
}

/** Node's own form of a failed call: `EACCES: permission denied, rename`. */
function errnoError(errno: number, syscall: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(
    `${getSystemErrorName(-errno)}: ${getSystemErrorMessage(-errno).toLowerCase()}, ${syscall}`,
  );
  err.errno = -errno;
  err.code = getSystemErrorName(-errno);
  err.syscall = syscall;
  return err;
}
