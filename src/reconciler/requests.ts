/** What callers hand the reconciler (reconciler.ts) with a reload, and what an edit (edit-flow.ts) gives back. */
import type { LoadResult } from '../settings/model/load.js';
import type { RenameWitness } from '../settings/store/watcher.js';

/** How a reload reads the files. */
export interface ReloadHow {
  /** The watcher reported a change: files byte-identical to the applied tree are not loaded (files-as-applied.ts). */
  fileEvent?: boolean;
  /** The file was replaced by rename: complete, read at once (stable-read.ts readReplaced). */
  replaced?: boolean;
  /** The watcher's rename witness: whether anyone wrote the file since it took the name. */
  untouched?: RenameWitness;
  /**
   * The load an edit checked before writing it (edit-flow.ts): files byte-identical to it are not loaded
   * again, it is applied as it is.
   */
  written?: ValidLoad;
}

/** A load of the settings tree that validated. */
export type ValidLoad = Extract<LoadResult, { ok: true }>;

/** What an edit's change gives back: its value, and the tree it checked and wrote (none when nothing was written). */
export interface EditOutcome<T> {
  value: T;
  written?: ValidLoad;
}
