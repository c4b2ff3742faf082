/** What callers hand the reconciler (reconciler.ts) with a reload, and what an edit (edit-flow.ts) gives back. */
import type { ValidLoad } from '../settings/store/change-stream.js';

/** How a reload reads the files (a trigger of the change stream), and a load that validated: settings/store/change-stream.ts. */
export type { ReloadHow, ValidLoad } from '../settings/store/change-stream.js';

/** What an edit's change gives back: its value, and the tree it checked and wrote (none when nothing was written). */
export interface EditOutcome<T> {
  value: T;
  written?: ValidLoad;
}
