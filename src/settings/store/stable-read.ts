/**
 * Reading the settings file only when it is complete. What is guaranteed:
 *
 * - A file that replaced the settings file by rename (editors that save by
 *   rename, `mv`, our own writes) is complete the moment it has the name:
 *   `readReplaced` reads it once with no wait, and takes it when the
 *   watcher's rename witness says no write reached it since (watcher.ts).
 *   Without a witness (a file created and written in place, as `git
 *   checkout` does; a symlink; a hard link) it checks that nobody is
 *   writing it: no process holds it open for writing and a second read
 *   agrees.
 * - A file written in place is read by `readStable` only when (1) two reads
 *   STABLE_INTERVAL_MS apart give the same bytes and (2) between them no
 *   process holds the file open for writing (settings/store/open-writers.ts). (2) is what
 *   a writer that pauses between two writes cannot pass, however long the
 *   pause: it still has the file open. Where the agent cannot see the
 *   writer (not Linux; the writer is another user and the agent is not
 *   root; the writer closes the file between its parts), the guarantee is
 *   (1) alone: the file was unchanged for STABLE_INTERVAL_MS.
 *
 * A writer that keeps the file open longer than WRITER_WAIT_MS is not
 * waited for beyond that: the stable content is read, with a warning
 * naming the process, and its next write (an event) reloads again.
 */
import { stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { sink } from '../../log.js';
import { readRegularFile, readRegularFileSync, SETTINGS_FILE_LIMIT } from '../../formats/regular-file.js';
import { heldForWritingAsync, identityKey, openWritersAsync } from './open-writers.js';
import type { RenameWitness } from './watcher.js';
import { inRange } from '../../in-range.js';

export const STABLE_INTERVAL_MS = Number(process.env.AGENT_RELOAD_STABLE_MS ?? 15);
/** How long an open writer is waited for. */
export const WRITER_WAIT_MS = 10_000;
/** Poll interval while a writer holds the file. */
const WRITER_POLL_MS = 20;
/** A file that is still changing after this many reads is taken as it is; its next event reloads again. */
const MAX_READS = 200;

const log = sink.logger('agent:reconciler:stable-read');

/** A settings file's bytes: a regular file of at most 16 MiB (a FIFO or a device is refused, never waited for or read without end). */
const readFile = (file: string): Promise<Buffer> => readRegularFile(file, SETTINGS_FILE_LIMIT);

/**
 * The bytes of a file that just replaced the settings file by rename:
 * complete as it is. The watcher's guess can be wrong (an in-place write
 * that starts right after a rename, or after the file came back, is
 * classified by an inode it did not see yet), so the bytes are taken only
 * when they are not empty and `untouched` (the watcher's rename witness,
 * asked after the read) says no write reached the file since it took the
 * name. Without a witness, or when it saw a write, they are taken when no
 * process holds the file open for writing and a second read agrees;
 * otherwise the file is read as an in-place save (readStable). Measured:
 * an empty read (a writer's truncation) applied as "every module disabled"
 * under load; and the scan for writers, 5-40 ms with 100 processes on a
 * busy host, was most of a rename's latency.
 */
export async function readReplaced(file: string, untouched?: RenameWitness): Promise<Buffer> {
  // One small local file, read at once: the thread pool's four round trips (open, stat, read, close) cost milliseconds on a busy host.
  const first = readRegularFileSync(file, SETTINGS_FILE_LIMIT);
  if (first.length > 0 && untouched && (await untouched())) return first;
  const writers = await writersOf(file);
  const second = await readFile(file);
  if (first.length > 0 && writers.length === 0 && second.equals(first)) return second;
  return readStable(file);
}

/** Resolves with the settled bytes; rejects when the file cannot be read. */
export async function readStable(file: string, interval = STABLE_INTERVAL_MS): Promise<Buffer> {
  const deadline = performance.now() + WRITER_WAIT_MS;
  let previous = await readFile(file);
  for (let i = 0; i < MAX_READS; i++) {
    // The scan runs inside the interval: a writer open at any moment between the two reads is seen,
    // and one that opens after the scan has not changed the bytes yet when the second read agrees.
    const started = performance.now();
    const writers = await writersOf(file);
    await sleep(Math.max(0, interval - (performance.now() - started)));
    const current = await readFile(file);
    if (!current.equals(previous)) {
      previous = current;
      continue;
    }
    if (writers.length === 0) return current;
    if (performance.now() >= deadline) {
      log.warning(
        `settings file ${file} is still open for writing by process ${writers.join(', ')} after ${WRITER_WAIT_MS / 1000} s; reading it as it is`,
      );
      return current;
    }
    // Wait for the writer to close the file, then start over: it may write more before it does.
    log.debug(`settings file ${file} is open for writing by process ${writers.join(', ')}; waiting for it to close`);
    while (performance.now() < deadline && (await writersOf(file)).length > 0) await sleep(WRITER_POLL_MS);
    previous = await readFile(file);
  }
  return previous;
}

/**
 * {@link readStable} for many files at once (the included files of a
 * reload): every file is read, one scan looks for writers of all of them,
 * and after the interval every file is read again; a file that agrees and
 * that nobody holds for writing is taken, any other goes through
 * readStable on its own. So 1,000 files cost two reads each and one scan,
 * not 1,000 intervals one after another. A file that cannot be read is an
 * Error in the result.
 */
export async function readStableMany(
  files: readonly string[],
  interval = STABLE_INTERVAL_MS,
): Promise<Map<string, Buffer | Error>> {
  const out = new Map<string, Buffer | Error>();
  const started = performance.now();
  const first = await readAll(files);
  const ids = await Promise.all(files.map((f) => stat(f).catch(() => undefined)));
  const held = (await heldForWritingAsync(ids.filter((id) => id !== undefined))) ?? new Map<string, number[]>();
  await sleep(Math.max(0, interval - (performance.now() - started)));
  const second = await readAll(files);
  const unsettled: string[] = [];
  files.forEach((f, i) => {
    // readAll answers for every file.
    const [a, b, id] = [inRange(first, i), inRange(second, i), ids[i]];
    if (b instanceof Error) out.set(f, b);
    else if (!(a instanceof Error) && a.equals(b) && id && !held.has(identityKey(id))) out.set(f, b);
    else unsettled.push(f);
  });
  for (const f of unsettled)
    out.set(
      f,
      await readStable(f, interval).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err)))),
    );
  return out;
}

/** Every file's bytes (or the Error reading it), 64 reads in flight at most. */
async function readAll(files: readonly string[]): Promise<(Buffer | Error)[]> {
  const out: (Buffer | Error)[] = new Array<Buffer | Error>(files.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < files.length; i = next++)
      out[i] = await readFile(inRange(files, i)).catch((err: unknown) =>
        err instanceof Error ? err : new Error(String(err)),
      );
  };
  await Promise.all(Array.from({ length: Math.min(64, files.length) }, worker));
  return out;
}

// ---------------------------------------------------------------- helpers

async function writersOf(file: string): Promise<number[]> {
  const st = await stat(file);
  return (await openWritersAsync({ dev: st.dev, ino: st.ino })) ?? [];
}
