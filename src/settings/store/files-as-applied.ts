/**
 * Whether the settings files hold exactly the tree the agent applied:
 * every file the last load read has the bytes it had then (its hash), and
 * that load watched nothing else (no folder of an include pattern, no
 * include that was missing, whose arrival would change the tree). Then a
 * load of the files gives the settings already applied, and the
 * reconciler skips it: for a file event (the watcher reporting the
 * agent's own write of an edit, a `touch`, a save of the same text) and
 * before an edit. SIGHUP and the API's reload always load, so they also
 * pick up what the files do not hold (a changed `${file:}` secret).
 */
import { resolve } from 'node:path';
import { readRegularFile, SETTINGS_FILE_LIMIT } from '../../formats/regular-file.js';
import { hashBytes } from '../model/file-hash.js';
import type { Snapshot } from '../model/snapshot.js';

/** `main`: the main file's bytes when the caller has just read them (a reload does). */
export async function filesAsApplied(
  applied: Snapshot,
  watched: readonly string[],
  main?: { file: string; bytes: Buffer },
): Promise<boolean> {
  const sources = new Map(applied.sources.map((s) => [resolve(s.file), s.hash]));
  if (watched.some((w) => !sources.has(resolve(w)))) return false;
  const mainFile = main ? resolve(main.file) : undefined;
  for (const [file, hash] of sources) {
    let bytes: Buffer;
    try {
      bytes = file === mainFile && main ? main.bytes : await readRegularFile(file, SETTINGS_FILE_LIMIT);
    } catch {
      return false;
    }
    if (hashBytes(bytes) !== hash) return false;
  }
  return true;
}
