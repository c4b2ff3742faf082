/**
 * A lock file next to a settings file, so that editors in different
 * processes (the CLI, the agent's API, several `config-agent web add-user` at once)
 * take turns: `.<name>.lock` in the same folder, created with O_EXCL and
 * holding the owner's pid and a random token.
 *
 * Guarantees: while `withFileLock(target, fn)` runs `fn`, no other caller of
 * withFileLock for the same target (in any process on this machine) runs
 * its own `fn`. A lock left by a killed process (its pid is gone) or older
 * than `staleMs` is taken over: it is first renamed to a private name and
 * removed only when it is still the lock that was judged stale, so two
 * waiters cannot both take over the same stale lock. Waiting is bounded
 * (`timeoutMs`); then AGENT_ERR_SETTINGS_LOCKED names the holder's pid.
 * Messages never name the lock file or any other helper file.
 *
 * Also here: the removal of temp files and stale locks that a killed writer
 * of the same settings file left behind (they all carry the dead writer's
 * pid in their names).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { link, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AgentError } from '../../errors.js';
import { getLogger } from '../../log.js';
import { backoffDelay, type BackoffPolicy } from '../../retry-policy.js';

const log = getLogger('agent:settings:file-lock');

export interface LockOptions {
  /** How long to wait for another holder, in ms (default 30 s). */
  timeoutMs?: number;
  /** A lock older than this is taken over even when its pid seems alive (pid reuse), in ms (default 60 s). */
  staleMs?: number;
}

/** The prefix of every helper file of `target` (temp files, the lock): `.<name>`, shortened so that suffixes fit in 255 bytes. */
export function helperPrefix(target: string): string {
  return `.${basename(target).slice(0, 60)}`;
}

/** A temp file name for a new copy of `target`, in its folder; it carries our pid so that a later writer can tell it was left by a dead one. */
export function tempPathFor(target: string): string {
  return join(dirname(target), `${helperPrefix(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

/** Run `fn` holding the lock of `target` (see the module comment). */
export async function withFileLock<T>(target: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const lock = join(dirname(target), `${helperPrefix(target)}.lock`);
  const token = `${process.pid}\n${HOST}\n${randomBytes(8).toString('hex')}\n`;
  await acquire(target, lock, token, options.timeoutMs ?? 30_000, options.staleMs ?? 60_000);
  try {
    return await fn();
  } finally {
    await release(lock, token);
  }
}

/**
 * Remove the temp files and renamed stale locks of `target` whose writer
 * process is gone. Call it while holding the lock. Failures are logged at
 * debug level only: leftovers cost disk space, not correctness.
 */
export async function removeLeftovers(target: string): Promise<number> {
  const folder = dirname(target);
  const prefix = helperPrefix(target);
  const pattern = new RegExp(
    `^${escapeRegExp(prefix)}\\.(?:(\\d+)\\.[0-9a-f]{12}\\.tmp|lock\\.stale\\.(\\d+)\\.[0-9a-f]{12})$`,
  );
  let removed = 0;
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return 0;
  }
  for (const name of names) {
    const m = pattern.exec(name);
    if (!m) continue;
    const pid = Number(m[1] ?? m[2]);
    if (pid === process.pid || isAlive(pid)) continue;
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

// ---------------------------------------------------------------------------
// Helpers

const HOST = hostname();
/** Waits for a held lock: 5 ms doubling to 100 ms, plus up to as much again at random. */
const LOCK_RETRY: BackoffPolicy = { firstMs: 5, factor: 2, maxMs: 100, jitter: 1 };

async function acquire(target: string, lock: string, token: string, timeoutMs: number, staleMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let waits = 0;
  let holder = '';
  for (;;) {
    try {
      const handle = await open(lock, 'wx', 0o644);
      try {
        await handle.writeFile(token, 'utf8');
      } finally {
        await handle.close();
      }
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw lockFailure(target, err);
    }
    const seen = await readLock(lock);
    if (seen !== null) {
      holder = seen.pid > 0 ? String(seen.pid) : 'unknown';
      if (seen.stale(staleMs)) {
        await takeOver(lock, seen.text);
        continue;
      }
    }
    if (performance.now() >= deadline)
      throw new AgentError('AGENT_ERR_SETTINGS_LOCKED', [target, holder || 'unknown', Math.round(timeoutMs / 1000)]);
    // Jittered, growing waits: twenty CLI processes do not retry in lockstep.
    await sleep(backoffDelay(LOCK_RETRY, ++waits));
  }
}

interface SeenLock {
  text: string;
  pid: number;
  stale(staleMs: number): boolean;
}

/** The lock as it is now; null when it vanished meanwhile. */
async function readLock(lock: string): Promise<SeenLock | null> {
  let text: string;
  let mtime: number;
  try {
    [text, mtime] = await Promise.all([readFile(lock, 'utf8'), stat(lock).then((s) => s.mtimeMs)]);
  } catch {
    return null;
  }
  const [pidText = '', host = ''] = text.split('\n');
  const pid = /^\d+$/.test(pidText) ? Number(pidText) : 0;
  return {
    text,
    pid,
    stale(staleMs) {
      if (Date.now() - mtime > staleMs) return true;
      // An empty or foreign lock gets the age rule only: its writer may still be filling it in.
      return pid > 0 && host === HOST && !isAlive(pid);
    },
  };
}

/**
 * Take over a stale lock: rename it to a private name (only one taker can
 * rename a given file), check that what moved is the lock judged stale, and
 * remove it. Had a fresh lock been moved instead (its holder replaced the
 * stale one in between), it is put back.
 */
async function takeOver(lock: string, staleText: string): Promise<void> {
  const moved = `${lock}.stale.${process.pid}.${randomBytes(6).toString('hex')}`;
  try {
    await rename(lock, moved);
  } catch {
    return; // someone else moved or removed it: try again from the start
  }
  let text = '';
  try {
    text = await readFile(moved, 'utf8');
  } catch {
    /* vanished: nothing to put back */
  }
  if (text !== '' && text !== staleText) {
    await link(moved, lock).catch(() => undefined);
  } else {
    log.info(`took over the lock of ${dirname(lock)} left by a writer that is gone`);
  }
  await unlink(moved).catch(() => undefined);
}

async function release(lock: string, token: string): Promise<void> {
  try {
    // Only our own lock: a holder judged stale (a very slow writer) must not remove its successor's.
    if ((await readFile(lock, 'utf8')) === token) await unlink(lock);
  } catch {
    /* already gone */
  }
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

/** A lock failure without the lock file's name: what went wrong and that the folder must be writable. */
function lockFailure(target: string, err: unknown): AgentError {
  const e = err as NodeJS.ErrnoException;
  const what =
    e.code === 'EACCES' || e.code === 'EPERM' || e.code === 'EROFS'
      ? `the folder ${dirname(target)} is not writable`
      : e.code === 'ENOENT'
        ? `the folder ${dirname(target)} does not exist`
        : (e.code ?? 'unknown error');
  return new AgentError('AGENT_ERR_SETTINGS_WRITE', [target, `cannot lock it for editing: ${what}`], { cause: err });
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
