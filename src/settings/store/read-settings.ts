/**
 * A reload's read of the settings tree: the main file once complete
 * (`replaced`: the watcher saw it replaced by rename, so it is read at
 * once; otherwise once settled, stable-read.ts), included files once
 * settled, then loaded and validated; for a file event, not loaded when
 * the files are byte-identical to the applied tree (files-as-applied.ts).
 * A main file that cannot be read is a
 * failed load with one problem (AGENT_ERR_SETTINGS_UNREADABLE) and no hash.
 *
 * Included files are read only when they changed since the last reload
 * (their size, times and identity differ, or they were not read before),
 * and then together: the files one [/includes] section names are asked
 * for at once (includes.ts), and readStableMany settles them in one
 * interval with one scan for writers.
 */
import { stat } from 'node:fs/promises';
import { fsReason } from '../../errors.js';
import { identityOf } from './file-identity.js';
import { SettingsReader } from './includes.js';
import { type LoadResult } from '../model/load.js';
import { loadSettingsFile } from './load-file.js';
import { reloadFailure, type SettingsProblem } from '../model/problem.js';
import type { Snapshot } from '../model/snapshot.js';
import { filesAsApplied } from './files-as-applied.js';
import { readReplaced, readStable, readStableMany } from './stable-read.js';
import type { RenameWitness } from './watcher.js';

export async function readSettingsTree(
  file: string,
  replaced: boolean,
  untouched?: RenameWitness,
  applied?: { snapshot: Snapshot; watched: readonly string[] },
): Promise<LoadResult | 'unchanged'> {
  let bytes: Buffer;
  try {
    bytes = replaced ? await readReplaced(file, untouched) : await readStable(file);
  } catch (err) {
    const problem: SettingsProblem = {
      code: 'AGENT_ERR_SETTINGS_UNREADABLE',
      severity: 'error',
      message: `cannot read settings file ${file}: ${fsReason(err)}`,
      file,
      line: 0,
      col: 0,
    };
    return { ok: false, problems: [problem], warnings: [], hash: '', watched: [] };
  }
  // `applied` (a file event): files byte-identical to the applied tree load to the applied settings.
  if (applied && (await filesAsApplied(applied.snapshot, applied.watched, { file, bytes }))) return 'unchanged';
  // Each reload reads the tree afresh. A failure of the reading itself (not a problem of the file) is a
  // failed reload like any other: logged, in the status and the metrics, and the next change is read again.
  try {
    return await loadSettingsFile(file, { bytes, reader: new SettingsReader({ read: includedReader() }) });
  } catch (err) {
    return { ok: false, problems: [reloadFailure(file, err)], warnings: [], hash: '', watched: [] };
  }
}

/** Included files as a reload read them, by path: their stat signature then, and the bytes. */
const lastRead = new Map<string, { signature: string; bytes: Buffer }>();
const MAX_REMEMBERED = 200_000;

/** A read function for one reload: requests of one turn of the event loop are answered together. */
interface ReadRequest {
  file: string;
  resolve: (b: Buffer) => void;
  reject: (e: Error) => void;
}

function includedReader(): (file: string) => Promise<Buffer> {
  let batch: ReadRequest[] | undefined;
  return (file) =>
    new Promise((resolve, reject) => {
      let current = batch;
      if (!current) {
        const mine: ReadRequest[] = [];
        current = batch = mine;
        setImmediate(() => {
          batch = undefined;
          readBatch(mine).catch((err: unknown) => {
            for (const r of mine) r.reject(err instanceof Error ? err : new Error(String(err)));
          });
        });
      }
      current.push({ file, resolve, reject });
    });
}

async function readBatch(requests: ReadRequest[]): Promise<void> {
  const signatures = await Promise.all(
    requests.map((r) => stat(r.file, { bigint: true }).then(identityOf, () => undefined)),
  );
  const changed: typeof requests = [];
  const changedSignatures: (string | undefined)[] = [];
  requests.forEach((r, i) => {
    const known = lastRead.get(r.file);
    if (known && signatures[i] !== undefined && known.signature === signatures[i]) r.resolve(known.bytes);
    else {
      changed.push(r);
      changedSignatures.push(signatures[i]);
    }
  });
  if (changed.length === 0) return;
  const read = await readStableMany(changed.map((r) => r.file));
  if (lastRead.size > MAX_REMEMBERED) lastRead.clear();
  changed.forEach((r, i) => {
    const bytes = read.get(r.file);
    if (bytes === undefined || bytes instanceof Error) return r.reject(bytes ?? new Error('not read'));
    // The signature from before the read: a change during it differs from it at the next reload.
    const signature = changedSignatures[i];
    if (signature !== undefined) lastRead.set(r.file, { signature, bytes });
    r.resolve(bytes);
  });
}
