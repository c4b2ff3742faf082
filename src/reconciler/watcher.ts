/**
 * Watches the settings file with chokidar: saved in place, replaced by
 * rename (editors, git checkout, our own atomic writes), deleted and
 * re-created. The folder is watched at depth 0 and only the file's own path
 * counts, so temp files of atomic writes are ignored.
 *
 * Each event is classified by the file's inode:
 * - `replaced`: a new, non-empty inode holds the name (a rename). It is
 *   complete, so it is reported at once, with no debounce (stable-read.ts
 *   reads it once);
 * - `modified`: the same inode changed (written in place), or a new empty
 *   one appeared (created, to be written in place). Bursts are debounced
 *   (DEBOUNCE_MS) into one report, and the reader waits for the file to
 *   settle;
 * - `removed`: the file is gone (debounced like `modified`).
 * chokidar drops a second `change` of a path within 50 ms of the first, so
 * a trailing stat TRAILING_MS after the last event reports a change that
 * no event announced.
 */
import { watch, type FSWatcher } from 'chokidar';
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { sink } from '../log.js';

export const DEBOUNCE_MS = Number(process.env.AGENT_RELOAD_DEBOUNCE_MS ?? 20);
/** After chokidar's 50 ms throttle of repeated change events. */
const TRAILING_MS = 70;

export type ChangeKind = 'replaced' | 'modified' | 'removed';

const log = sink.logger('agent:reconciler:watcher');

export interface SettingsWatcher {
  /** Resolves once the watcher is ready. */
  ready: Promise<void>;
  close(): Promise<void>;
}

export function watchSettings(file: string, onChange: (event: string, kind: ChangeKind) => void, debounceMs = DEBOUNCE_MS): SettingsWatcher {
  const abs = resolve(file);
  const dir = dirname(abs);
  const name = basename(abs);
  let timer: NodeJS.Timeout | undefined;
  let trailing: NodeJS.Timeout | undefined;
  let events: string[] = [];
  let pendingKind: ChangeKind = 'modified';
  /** Identity of the file as last reported (or at start). */
  let reported = identityNow(abs);
  /** Serializes the stats of events, so they classify in order. */
  let chain: Promise<void> = Promise.resolve();
  let closed = false;

  const watcher: FSWatcher = watch(dir, {
    depth: 0,
    ignoreInitial: true,
    // Keep the folder itself and the settings file; ignore everything else.
    ignored: (path: string) => path !== dir && basename(path) !== name,
  });

  const report = (kind: ChangeKind, id: string): void => {
    reported = id;
    const what = [...new Set(events)].join('+');
    events = [];
    onChange(what, kind);
  };

  const classify = async (event: string | undefined): Promise<void> => {
    const st = await stat(abs).catch(() => undefined);
    if (closed) return;
    const id = st ? identity(st) : '';
    if (event === undefined) {
      // Trailing check: report only what no event announced.
      if (id === reported || timer) return;
      events.push('change');
    } else {
      events.push(event);
    }
    if (st && st.size > 0 && inode(id) !== inode(reported)) {
      if (timer) clearTimeout(timer);
      timer = undefined;
      report('replaced', id);
      return;
    }
    pendingKind = st ? 'modified' : 'removed';
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      report(pendingKind, id);
    }, debounceMs);
  };

  const enqueue = (event: string | undefined): void => {
    chain = chain.then(() => classify(event)).catch((err: unknown) => log.error(`watching ${abs} failed: ${String(err)}`));
  };

  watcher.on('all', (event, path) => {
    if (resolve(path) !== abs) return;
    if (event === 'unlink') log.warning(`settings file ${abs} was removed; keeping the running settings until it comes back`);
    enqueue(event);
    if (trailing) clearTimeout(trailing);
    trailing = setTimeout(() => {
      trailing = undefined;
      enqueue(undefined);
    }, TRAILING_MS);
  });
  watcher.on('error', (err) => log.error(`watching ${abs} failed: ${String(err)}`));
  const ready = new Promise<void>((res) => watcher.once('ready', () => res()));
  return {
    ready,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      if (trailing) clearTimeout(trailing);
      await watcher.close();
    },
  };
}

// ---------------------------------------------------------------- helpers

interface StatLike {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

/** dev:ino:size:mtime:ctime; '' for a missing file. */
function identity(st: StatLike): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}

function inode(id: string): string {
  return id.split(':', 2).join(':');
}

function identityNow(file: string): string {
  try {
    return identity(statSync(file));
  } catch {
    return '';
  }
}
