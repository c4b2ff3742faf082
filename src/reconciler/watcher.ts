/**
 * Watches the settings file with chokidar: saved in place, replaced by
 * rename (editors, git checkout, our own atomic writes), deleted and
 * re-created. The folder is watched at depth 0 and only the file's own path
 * counts, so temp files of atomic writes are ignored. Bursts of events are
 * debounced into one reload.
 */
import { watch, type FSWatcher } from 'chokidar';
import { basename, dirname, resolve } from 'node:path';
import { sink } from '../log.js';

export const DEBOUNCE_MS = Number(process.env.AGENT_RELOAD_DEBOUNCE_MS ?? 40);

const log = sink.logger('agent:reconciler:watcher');

export interface SettingsWatcher {
  /** Resolves once the watcher is ready. */
  ready: Promise<void>;
  close(): Promise<void>;
}

export function watchSettings(file: string, onChange: (event: string) => void, debounceMs = DEBOUNCE_MS): SettingsWatcher {
  const abs = resolve(file);
  const dir = dirname(abs);
  const name = basename(abs);
  let timer: NodeJS.Timeout | undefined;
  let events: string[] = [];
  const watcher: FSWatcher = watch(dir, {
    depth: 0,
    ignoreInitial: true,
    // Keep the folder itself and the settings file; ignore everything else.
    ignored: (path: string) => path !== dir && basename(path) !== name,
  });
  const fire = (event: string): void => {
    events.push(event);
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      const what = [...new Set(events)].join('+');
      events = [];
      onChange(what);
    }, debounceMs);
  };
  watcher.on('all', (event, path) => {
    if (resolve(path) !== abs) return;
    if (event === 'unlink') log.warning(`settings file ${abs} was removed; keeping the running settings until it comes back`);
    fire(event);
  });
  watcher.on('error', (err) => log.error(`watching ${abs} failed: ${String(err)}`));
  const ready = new Promise<void>((res) => watcher.once('ready', () => res()));
  return {
    ready,
    async close() {
      if (timer) clearTimeout(timer);
      await watcher.close();
    },
  };
}
