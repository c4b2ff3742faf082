/**
 * Read the settings file only once it is stable: the same bytes on two reads
 * a short interval apart. A file written in place can be caught half-written,
 * and a partial file may still be valid (and would unload modules).
 */
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

export const STABLE_INTERVAL_MS = 15;
const MAX_TRIES = 40;

/** Resolves with the stable bytes; rejects when the file cannot be read. */
export async function readStable(file: string, interval = STABLE_INTERVAL_MS): Promise<Buffer> {
  let previous = await readFile(file);
  for (let i = 0; i < MAX_TRIES; i++) {
    await sleep(interval);
    const current = await readFile(file);
    if (current.equals(previous)) return current;
    previous = current;
  }
  // Still changing after ~0.6 s: take the latest; the next event reloads again.
  return previous;
}
