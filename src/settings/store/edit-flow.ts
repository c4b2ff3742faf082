/**
 * An edit of the settings (the API's: agent.ts guardedEdit) as a one-way
 * flow, the same as a hand edit: the files are checked as they are, the
 * edit is validated and written through the store (`change`: lock, atomic
 * rewrite, edit-tree.ts), and then a reload of the one change stream
 * (change-stream.ts) reads the files back and the reconciler applies them.
 * The reconciler has no edit path of its own and reads no file: it is the
 * target here (EditTarget). The reload after the write is told the load
 * the edit checked (ReloadHow.written): files byte-identical to it adopt
 * it with no second load; the watcher's report of the same write then
 * finds the files as applied and loads nothing (files-as-applied.ts).
 * Edits run one at a time per target, so parallel edits are each written
 * over the one before and lose nothing.
 */
import { AgentError } from '../../errors.js';
import type { SettingsProblem } from '../model/problem.js';
import type { Snapshot } from '../model/snapshot.js';
import type { ReloadHow, ValidLoad } from './change-stream.js';
import { filesAsApplied } from './files-as-applied.js';

/** What an edit's change gives back: its value, and the tree it checked and wrote (none when nothing was written). */
export interface EditOutcome<T> {
  value: T;
  written?: ValidLoad;
}

/** What an edit is applied by: the reconciler (reconciler/reconciler.ts), its settings and its reloads. */
export interface EditTarget {
  /** True once the target stops: an edit writes nothing. */
  readonly stopping: boolean;
  settings(): Snapshot;
  watched(): readonly string[];
  reload(reason: string, how?: ReloadHow): Promise<{ problems: readonly SettingsProblem[]; lastResult: string }>;
}

const chains = new WeakMap<EditTarget, Promise<unknown>>();

/**
 * Run `change` with the problems of the files as they are now (none when
 * they hold the applied tree; otherwise a reload reads them first), then,
 * when it wrote something (`written`), wait for the reload that applies
 * it. What `change` throws is thrown (nothing was written then). A reload
 * that refuses the files after the write (a hand save came between) is
 * AGENT_ERR_SETTINGS_CONFLICT: the edit is not in force.
 */
export async function editThroughStore<T>(
  r: EditTarget,
  why: string,
  change: (problems: readonly SettingsProblem[]) => Promise<EditOutcome<T>>,
): Promise<T> {
  const run = async (): Promise<T> => {
    if (r.stopping) throw new Error('the agent is stopping');
    const current = await filesAsApplied(r.settings(), r.watched());
    const problems = current ? [] : (await r.reload(`before: ${why}`)).problems;
    const outcome = await change(problems);
    if (outcome.written) {
      const applied = await r.reload(why, { written: outcome.written });
      // The edit was checked as written, so a refused reload read other files: a hand save landed after
      // the write. The edit is not in force (the last good settings are), and the caller must know.
      if (applied.lastResult === 'invalid') throw new AgentError('AGENT_ERR_SETTINGS_CONFLICT', [r.settings().file]);
    }
    return outcome.value;
  };
  const previous = chains.get(r) ?? Promise.resolve();
  const mine = previous.then(run, run);
  chains.set(
    r,
    mine.catch(() => undefined),
  );
  return mine;
}
