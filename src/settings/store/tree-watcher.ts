/**
 * Watches every file of a settings tree: the main file and every file it
 * includes (`[/includes]`), so that editing a shared base hot-applies on
 * every agent whose file includes it. Each file gets the single-file
 * watcher of watcher.ts (renames, in-place saves, deletion); a folder that
 * an include names (directly or through a `*` pattern) is watched for `.ini`
 * files appearing, changing or going. `update` follows the tree as it
 * changes (the agent calls it after every reload, good or bad, so a broken
 * base that gets fixed is seen). A change of an included file is reported
 * as `modified`: the main file is then read once settled, like the rest.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { sink } from '../../log.js';
import {
  DEBOUNCE_MS,
  watchPath,
  watchSettings,
  type ChangeKind,
  type RenameWitness,
  type SettingsWatcher,
} from './watcher.js';

const log = sink.logger('agent:reconciler:tree-watcher');

export interface SettingsTreeWatcher {
  /** Resolves once every watcher is ready. */
  ready: Promise<void>;
  /** Watch exactly these paths from now on (the main file stays watched). */
  update(paths: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

export function watchSettingsTree(
  main: string,
  paths: readonly string[],
  onChange: (event: string, kind: ChangeKind, untouched?: RenameWitness) => void,
): SettingsTreeWatcher {
  const mainAbs = resolve(main);
  const watchers = new Map<string, SettingsWatcher>();
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const folderChanged = (event: string): void => {
    // Files appearing in or leaving a folder: debounced like in-place saves.
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      if (!closed) onChange(`include folder ${event}`, 'modified');
    }, DEBOUNCE_MS);
  };

  const add = (path: string): SettingsWatcher => {
    if (path !== mainAbs && isDirectory(path)) return watchFolder(path, folderChanged);
    return watchSettings(path, (event, kind, untouched) => {
      if (path === mainAbs) onChange(event, kind, untouched);
      else onChange(`${event} of included ${path}`, kind === 'removed' ? 'removed' : 'modified');
    });
  };

  const update = async (next: readonly string[]): Promise<void> => {
    if (closed) return;
    const wanted = new Set([mainAbs, ...next.map((p) => resolve(p))]);
    const started: Promise<void>[] = [];
    for (const path of wanted) {
      if (watchers.has(path)) continue;
      const w = add(path);
      watchers.set(path, w);
      started.push(w.ready);
    }
    for (const [path, w] of watchers) {
      if (wanted.has(path)) continue;
      watchers.delete(path);
      await w.close();
    }
    await Promise.all(started);
    if (watchers.size > 1) log.debug(`watching ${watchers.size} settings files and folders`);
  };

  const ready = update(paths);
  return {
    ready,
    update,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await Promise.all([...watchers.values()].map((w) => w.close()));
      watchers.clear();
    },
  };
}

// ---------------------------------------------------------------- helpers

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * `.ini` files of one folder appearing, changing or going: node:fs's watch
 * of the folder (inotify), as the files themselves are watched (watcher.ts),
 * so the agent has one file watcher. An event without a name (the kernel's
 * queue overflowed) counts as a change; a missing folder is not watched
 * (its include is reported missing, and the reload that follows its
 * creation through the parent's include watches it).
 */
function watchFolder(folder: string, onChange: (event: string) => void): SettingsWatcher {
  const watcher = watchPath(folder, (event, name) => {
    if (name === null || name.toLowerCase().endsWith('.ini')) onChange(event);
  });
  return {
    ready: Promise.resolve(),
    close: () => {
      watcher?.close();
      return Promise.resolve();
    },
  };
}
