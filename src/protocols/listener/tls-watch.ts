/**
 * Watches a listener's TLS files (certificate, key, CA, DH) for changes on
 * disk, so a renewed certificate (certbot, an ACME client, a copy by hand)
 * reaches new connections without a settings edit. One node:fs watch per
 * folder (inotify on Linux): a file replaced by rename, written in place,
 * or a symlink pointed elsewhere (certbot's live/ folder) is an event of
 * its name there. Bursts (a certificate and its key written one after the
 * other) are debounced into one `onChange`. A folder that cannot be watched
 * (missing, no inotify left) is skipped with a debug line: the files then
 * change with the next settings edit or restart, as before.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from '../../log.js';
import { errorMessage } from '../../errors.js';

/** Events of one burst within this many ms make one reload. */
const TLS_WATCH_DEBOUNCE_MS = 300;

export interface TlsWatch {
  close(): void;
}

export function watchTlsFiles(files: readonly string[], log: Logger, onChange: () => void): TlsWatch {
  const names = new Map<string, Set<string>>();
  for (const f of files) {
    const dir = dirname(f);
    const set = names.get(dir) ?? new Set<string>();
    set.add(basename(f));
    names.set(dir, set);
  }
  let timer: NodeJS.Timeout | undefined;
  const changed = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      onChange();
    }, TLS_WATCH_DEBOUNCE_MS);
  };
  const watchers: FSWatcher[] = [];
  for (const [dir, set] of names) {
    try {
      const w = watch(dir, { persistent: false }, (_event, name) => {
        if (name === null || set.has(name)) changed();
      });
      w.on('error', (err) => log.debug(`watching ${dir} for TLS file changes stopped: ${errorMessage(err)}`));
      watchers.push(w);
    } catch (err) {
      log.debug(`cannot watch ${dir} for TLS file changes: ${errorMessage(err)}`);
    }
  }
  return {
    close() {
      if (timer !== undefined) clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
