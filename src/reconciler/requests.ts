/** What callers hand the reconciler (reconciler.ts) with a reload, and what an edit (edit-flow.ts) gives back. */
import type { LoadResult } from '../settings/model/load.js';

/** How a reload reads the files: a trigger of the change stream (settings/store/change-stream.ts). */
export type { ReloadHow } from '../settings/store/change-stream.js';

/** A load of the settings tree that validated. */
export type ValidLoad = Extract<LoadResult, { ok: true }>;

/** What an edit's change gives back: its value, and the tree it checked and wrote (none when nothing was written). */
export interface EditOutcome<T> {
  value: T;
  written?: ValidLoad;
}
