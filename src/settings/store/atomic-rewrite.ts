/**
 * Atomic rewrites of one settings file: a temp file in the same folder,
 * fsynced and put in place of the original (mode and owner kept) only while
 * the original still is the file that was read (checked-replace.ts). That
 * one check is what keeps concurrent writers from losing each other's
 * changes, whoever they are: other edits of this process (also queued one
 * after the other), the CLI in other processes, a text editor, `git
 * checkout`. An edit that finds the file changed reads it again and
 * applies its transform on the new text, after a short random wait, until
 * it lands or `retryForMs` has passed. What the rewrite does to the text is
 * the caller's transform (settings/store/edit-ini.ts).
 */
import { isUtf8 } from 'node:buffer';
import { statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { open, readFile, realpath, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { AgentError, errorMessage } from '../../errors.js';
import { getLogger } from '../../log.js';
import { removeLeftovers, tempPathFor } from './temp-files.js';
import { hashBytes } from '../model/file-hash.js';
import { contentIdentityOf, identityOf } from './file-identity.js';
import { replaceIfUnchanged } from './checked-replace.js';
import { syncFolder, writeTemp } from './durable-write.js';
import { writtenAfterRead } from './replaced-copy.js';
import { backoffDelay, type BackoffPolicy } from '../../retry-policy.js';

const log = getLogger('agent:settings:edit-ini');

/** sha256 (hex) of the bytes; a string counts as its UTF-8 bytes (file-hash.ts). */
export const hashText: (text: string | Uint8Array) => string = hashBytes;

export interface EditFileOptions {
  /** The hash the caller read; a different file on disk is AGENT_ERR_SETTINGS_CONFLICT (never retried). */
  expectedHash?: string;
  /**
   * Create the file when it does not exist (only when every edit is a `set`).
   * Default false: a missing file is AGENT_ERR_SETTINGS_NOT_FOUND, so a
   * mistyped path never becomes a new file holding one section.
   */
  create?: boolean;
  /** How long an edit that keeps finding the file changed by another writer tries again, in ms (default 30 s). */
  retryForMs?: number;
  /** Test hook: runs after the temp file is written, before the conflict re-check and rename. */
  beforeRename?: () => Promise<void>;
}

/** The wait before an edit reads the file again after a conflict: 2 ms doubling to 50 ms, plus up to as much again at random, so writers in different processes do not retry in lockstep. */
const CONFLICT_RETRY: BackoffPolicy = { firstMs: 2, factor: 2, maxMs: 50, jitter: 1 };

/**
 * Replace `file`'s text by `transform(text)` atomically, never over another writer's change (see
 * editSettingsFile in settings/store/edit-ini.ts for the guarantees and errors).
 * `mayCreate`: a missing file may be created (with `options.create`).
 */
export function rewriteChecked(
  file: string,
  transform: (text: string) => string,
  mayCreate: boolean,
  options: EditFileOptions,
): Promise<{ hash: string; changed: boolean }> {
  return queued(file, () => rewriteNow(file, transform, mayCreate, options));
}

const queues = new Map<string, Promise<void>>();

function noop(): void {}

/** Calls for the same file in this process run one after the other. */
function queued<T>(file: string, run: () => Promise<T>): Promise<T> {
  const key = resolve(file);
  const previous = queues.get(key) ?? Promise.resolve();
  const result = previous.then(run);
  const tail = result.then(noop, noop);
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return result;
}

async function rewriteNow(
  file: string,
  transform: (text: string) => string,
  mayCreate: boolean,
  options: EditFileOptions,
): Promise<{ hash: string; changed: boolean }> {
  const target = await targetOf(file, mayCreate, options.create === true);
  await removeLeftovers(target);
  const deadline = performance.now() + (options.retryForMs ?? 30_000);
  for (let attempt = 1; ; attempt++) {
    const result = await rewriteOnce(file, target, transform, options);
    if (result !== 'conflict') return result;
    if (options.expectedHash !== undefined || performance.now() >= deadline)
      throw new AgentError('AGENT_ERR_SETTINGS_CONFLICT', [file]);
    log.debug(`${file} changed while we wrote it (attempt ${attempt}); re-applying the edit`);
    await sleep(backoffDelay(CONFLICT_RETRY, attempt));
  }
}

/** One read-edit-write round; 'conflict' when another writer changed the file before our rename (nothing written). */
async function rewriteOnce(
  file: string,
  target: string,
  transform: (text: string) => string,
  options: EditFileOptions,
): Promise<{ hash: string; changed: boolean } | 'conflict'> {
  const current = await readCurrent(file, target, options.create === true);
  try {
    return await rewriteRead(file, target, current, transform, options);
  } finally {
    await current.handle?.close();
  }
}

/** rewriteOnce on the file as read (`current`, whose descriptor stays open until the rename is checked). */
async function rewriteRead(
  file: string,
  target: string,
  current: Current,
  transform: (text: string) => string,
  options: EditFileOptions,
): Promise<{ hash: string; changed: boolean } | 'conflict'> {
  const hash = current.bytes === null ? hashText('') : hashText(current.bytes);
  if (options.expectedHash !== undefined && options.expectedHash !== hash)
    throw new AgentError('AGENT_ERR_SETTINGS_CONFLICT', [file]);
  const text = current.bytes === null ? '' : current.bytes.toString('utf8');
  const next = transform(text);
  if (current.bytes !== null && next === text) return { hash, changed: false };

  const temp = tempPathFor(target);
  try {
    await writeTemp(temp, next, current.mode, current.owner);
    if (options.beforeRename) await options.beforeRename();
    // The content check reads the file through the thread pool (milliseconds on a busy host); then,
    // without giving the event loop a turn, the file's identity is compared with the one read and the
    // rename done: a hand edit saved in between is a conflict (read again), not overwritten.
    if (!(await unchangedSince(target, current.bytes)) || !sameIdentity(target, current.identity)) {
      await unlink(temp).catch(noop);
      return 'conflict';
    }
    // A save by rename that lands after that check is caught by the replace itself (checked-replace.ts).
    if (replaceIfUnchanged(temp, target, current.content) === 'conflict') return 'conflict';
  } catch (err) {
    await unlink(temp).catch(noop);
    if (err instanceof AgentError) throw err;
    throw new AgentError('AGENT_ERR_SETTINGS_WRITE', [file, withoutPath(err, temp)], { cause: err });
  }
  const ours = statSync(target, { bigint: true, throwIfNoEntry: false });
  await syncFolder(dirname(target));
  // A writer that opened the file before the rename may have written to the copy it replaced (replaced-copy.ts).
  const lost = current.handle && current.content ? await writtenAfterRead(current.handle, current.content) : undefined;
  if (lost !== undefined) {
    await putBack(file, target, lost, ours ? contentIdentityOf(ours) : null, current);
    return 'conflict';
  }
  log.debug(`rewrote ${file}`);
  return { hash: hashText(next), changed: true };
}

/**
 * Put the replaced copy (`bytes`, with another writer's change) back when the file still is what the edit
 * wrote (`ours`); the edit is then read again. Else the copy is kept beside it, named in an error line.
 */
async function putBack(file: string, target: string, bytes: Buffer, ours: string | null, current: Current) {
  const temp = tempPathFor(target);
  await writeTemp(temp, bytes, current.mode, current.owner);
  if (sameContent(target, ours) && replaceIfUnchanged(temp, target, ours) === 'replaced') {
    await syncFolder(dirname(target));
    log.warning(
      `${file}: another process wrote to the file while this edit replaced it; its text is put back and the edit is read again`,
    );
    return;
  }
  const kept = `${target}.replaced-${Date.now()}`;
  await unlink(temp).catch(noop);
  await writeTemp(kept, bytes, current.mode, current.owner);
  log.error(
    `${file}: another process wrote to the file while this edit replaced it, and it changed again since; that write is kept in ${kept}`,
  );
}

/** The real path to replace (symlinks followed); a missing file only with `create` and set edits. */
async function targetOf(file: string, mayCreate: boolean, create: boolean): Promise<string> {
  try {
    return await realpath(file);
  } catch (err) {
    if (!isNotFound(err))
      throw new AgentError('AGENT_ERR_SETTINGS_UNREADABLE', [file, errorMessage(err)], { cause: err });
    if (!create) throw new AgentError('AGENT_ERR_SETTINGS_NOT_FOUND', [file], { cause: err });
    if (!mayCreate) throw new AgentError('AGENT_ERR_SETTINGS_UNREADABLE', [file, 'the file does not exist']);
    return resolve(file);
  }
}

/**
 * An fs error's message without the path it names (a temp file's name
 * means nothing to the user): `EFBIG: file too large, write`.
 */
function withoutPath(err: unknown, temp: string): string {
  return errorMessage(err)
    .replace(/ '[^']*'( -> '[^']*')?/g, '')
    .split(temp)
    .join('a new copy');
}

interface Current {
  /** The real path to replace (symlinks followed). */
  target: string;
  /** null: the file does not exist yet. */
  bytes: Buffer | null;
  /** Permission bits to keep; null for a new file (the umask decides). */
  mode: number | null;
  owner: { uid: number; gid: number } | null;
  /** identityOf the file as read (taken before the read); null when there was none. */
  identity: string | null;
  /** contentIdentityOf the file as read, for the check after the rename (replaced-copy.ts). */
  content: string | null;
  /** The descriptor it was read through, open until the rename is checked (replaced-copy.ts); null for a new file. */
  handle: FileHandle | null;
}

async function readCurrent(file: string, target: string, create: boolean): Promise<Current> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(target, 'r');
    // The identity before the bytes: a write between the two makes them disagree, which is seen as a change.
    const info = await handle.stat({ bigint: true });
    const bytes = await handle.readFile();
    if (!isUtf8(bytes))
      throw new AgentError('AGENT_ERR_SETTINGS_WRITE', [file, 'the file is not valid UTF-8; refusing to rewrite it']);
    return {
      target,
      bytes,
      mode: Number(info.mode) & 0o7777,
      owner: { uid: Number(info.uid), gid: Number(info.gid) },
      identity: identityOf(info),
      content: contentIdentityOf(info),
      handle,
    };
  } catch (err) {
    await handle?.close();
    if (err instanceof AgentError) throw err;
    if (isNotFound(err) && create)
      return { target, bytes: null, mode: null, owner: null, identity: null, content: null, handle: null };
    if (isNotFound(err)) throw new AgentError('AGENT_ERR_SETTINGS_NOT_FOUND', [file], { cause: err });
    throw new AgentError('AGENT_ERR_SETTINGS_UNREADABLE', [file, errorMessage(err)], { cause: err });
  }
}

/** The file at `target` is still the one read (`identity`; null: there was none, and there is none). */
function sameIdentity(target: string, identity: string | null): boolean {
  const now = statSync(target, { bigint: true, throwIfNoEntry: false });
  return now === undefined ? identity === null : identity !== null && identityOf(now) === identity;
}

/** sameIdentity by contentIdentityOf: the file at `target` is still inode and content `content`. */
function sameContent(target: string, content: string | null): boolean {
  const now = statSync(target, { bigint: true, throwIfNoEntry: false });
  return now !== undefined && content !== null && contentIdentityOf(now) === content;
}

/** True when the target still holds `bytes` (or still does not exist, for null). */
async function unchangedSince(target: string, bytes: Buffer | null): Promise<boolean> {
  try {
    const now = await readFile(target);
    return bytes !== null && now.equals(bytes);
  } catch (err) {
    if (isNotFound(err)) return bytes === null;
    throw err;
  }
}

function isNotFound(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}
