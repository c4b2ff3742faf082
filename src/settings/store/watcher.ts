/**
 * Watches one settings file: saved in place, replaced by rename (editors,
 * `mv`, our own atomic writes), deleted and re-created. Two watches of
 * node:fs (inotify on Linux): the folder, for what happens to the file's
 * name (a rename over it, its removal, its creation, writes through it),
 * and the file itself, for writes that reach it by another way (the path
 * is a symlink, or a hard link elsewhere); it follows the file as new
 * inodes take the name. node:fs, not chokidar, for this and for the
 * folders of includes (tree-watcher.ts), one watcher for both: chokidar
 * stats the file before passing an event on, throttles repeated changes of
 * a path (50 ms) and does not say which kind of event came, and the rename
 * witness below needs to know.
 *
 * Each event is classified, in its callback and in order, by a stat of the
 * path:
 * - `replaced`: a new, non-empty inode holds the name. It is reported at
 *   once, with no debounce (stable-read.ts reads it once);
 * - `modified`: the same inode changed (written in place), or a new empty
 *   one appeared (created, to be written in place). Bursts are debounced
 *   (DEBOUNCE_MS) into one report, and the reader waits for the file to
 *   settle;
 * - `removed`: the file is gone (debounced like `modified`).
 * An event that only says the name changed hands (a rename, the old
 * inode's last link going) while the name holds what was last reported is
 * nothing new and is dropped.
 *
 * The rename witness: when a new inode arrived by its name (the folder saw
 * a rename or creation of it, not a write), has one link and the path is
 * not a symlink, the report carries `untouched`. It resolves true when no
 * write event reached the file since it took the name, counting every event
 * the kernel queued before the call, so a reader that calls it after
 * reading knows no writer touched what it read: the file is complete as
 * renamed, with no scan for writers (settings/store/open-writers.ts). The witness only
 * reads the count; it changes nothing in the watcher. A truncating in-place
 * save queues its event when it opens the file, before it writes anything,
 * so a half-written file never passes. What passes undetected: a writer that
 * renames a file before it finished writing it and writes the rest later
 * (its next write is an event, which reloads again).
 */
import { lstatSync, statSync, watch, type FSWatcher, type Stats } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { sink } from '../../log.js';

export const DEBOUNCE_MS = Number(process.env.AGENT_RELOAD_DEBOUNCE_MS ?? 20);

export type ChangeKind = 'replaced' | 'modified' | 'removed';

/**
 * Resolves true when no write reached the file since it was renamed into
 * place; every event queued before the call is counted. It only reads the
 * watcher's count of write events: the writes it saw are reported as
 * usual (an in-place report follows), so a reader told false settles the
 * file on its own (stable-read.ts) and the next report reads it again.
 */
export type RenameWitness = () => Promise<boolean>;

const log = sink.logger('agent:reconciler:watcher');

export interface SettingsWatcher {
  /** Resolves once the watcher is ready. */
  ready: Promise<void>;
  close(): Promise<void>;
}

export function watchSettings(
  file: string,
  onChange: (event: string, kind: ChangeKind, untouched?: RenameWitness) => void,
  debounceMs = DEBOUNCE_MS,
): SettingsWatcher {
  const abs = resolve(file);
  const name = basename(abs);
  let timer: NodeJS.Timeout | undefined;
  let events: string[] = [];
  let pendingKind: ChangeKind = 'modified';
  /** Identity of the file as last reported (or at start). */
  let reported = identity(statOf(abs));
  /** Write events seen so far (the rename witness compares counts). */
  let writes = 0;
  let closed = false;
  /** The file was found missing (and the removal logged). */
  let gone = reported === '';
  /** The watch of the file itself and the inode it was armed on. */
  let fileWatch: FSWatcher | undefined;
  let armed = '';

  const report = (kind: ChangeKind, id: string, untouched?: RenameWitness): void => {
    reported = id;
    const what = [...new Set(events)].join('+');
    events = [];
    onChange(what, kind, untouched);
  };

  const witness =
    (since: number): RenameWitness =>
    async () => {
      await eventsQueuedBefore();
      return !closed && writes === since;
    };

  /** `write`: content or attributes of the inode holding the name changed; otherwise the name changed hands. */
  const classify = (event: string, write: boolean, st: Stats | undefined): void => {
    const id = identity(st);
    if (!write && id === reported) return;
    events.push(event);
    if (st && st.size > 0 && inode(id) !== inode(reported)) {
      gone = false;
      if (timer) clearTimeout(timer);
      timer = undefined;
      const arrived = !write && st.nlink === 1 && !isSymlink(abs);
      report('replaced', id, arrived ? witness(writes) : undefined);
      return;
    }
    if (!st && !gone) log.warning(`settings file ${abs} was removed; keeping the running settings until it comes back`);
    gone = !st;
    pendingKind = st ? 'modified' : 'removed';
    // Tests wait for this line to know the watcher saw an event (rather than sleeping and hoping).
    log.debug(`${abs}: ${event}; reading it in ${debounceMs} ms unless more follows`);
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      report(pendingKind, id);
    }, debounceMs);
  };

  const onEvent = (event: string, fromFile: boolean): void => {
    if (closed) return;
    const st = statOf(abs);
    const ino = inode(identity(st));
    // The file's own watch speaks for the inode it was armed on: once another holds the name, only of that one going.
    const write = event === 'change' && (!fromFile || ino === armed);
    if (write) writes++;
    if (ino !== armed) arm(ino);
    classify(event === 'rename' ? 'rename' : 'change', write, st);
  };

  const arm = (ino: string): void => {
    fileWatch?.close();
    fileWatch = undefined;
    armed = ino;
    if (ino) fileWatch = watchPath(abs, (event) => onEvent(event, true));
  };

  const folder = watchPath(dirname(abs), (event, filename) => {
    if (filename === null || filename === name) onEvent(event, false);
  });
  arm(inode(reported));
  return {
    ready: Promise.resolve(),
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      folder?.close();
      fileWatch?.close();
      return Promise.resolve();
    },
  };
}

// ---------------------------------------------------------------- helpers

/**
 * Two turns of the event loop: the poll phase between them reads the
 * inotify descriptor, so every event the kernel queued before the call has
 * reached its listener when this resolves.
 */
async function eventsQueuedBefore(): Promise<void> {
  for (let i = 0; i < 2; i++) await new Promise<void>((res) => setImmediate(res));
}

/** node:fs's watch of `path`, its errors logged; undefined when it cannot be watched (a missing folder is said at debug level). */
export function watchPath(
  path: string,
  listener: (event: string, filename: string | null) => void,
): FSWatcher | undefined {
  try {
    const w = watch(path, listener);
    w.on('error', (err) => log.error(`watching ${path} failed: ${String(err)}`));
    return w;
  } catch (err) {
    // A missing folder (an include that does not exist) is not watched; anything else is worth saying.
    const code = (err as NodeJS.ErrnoException).code;
    (code === 'ENOENT' || code === 'ENOTDIR' ? log.debug : log.error)(`cannot watch ${path}: ${String(err)}`);
    return undefined;
  }
}

function statOf(file: string): Stats | undefined {
  try {
    return statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function isSymlink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** dev:ino:size:mtime:ctime; '' for a missing file. */
function identity(st: Stats | undefined): string {
  return st ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` : '';
}

function inode(id: string): string {
  return id.split(':', 2).join(':');
}
