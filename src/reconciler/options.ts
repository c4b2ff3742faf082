/** What a Reconciler is made with (reconciler.ts). */
import type { ReconcilerStatus, SettingsProblem } from '../core/control.js';
import type { ChangeStream } from '../settings/store/change-stream.js';
import type { Core } from '../core/core.js';
import type { CatalogueEntry } from '../modules/catalogue.js';
import type { Snapshot } from '../settings/model/snapshot.js';

/** Extra members of a module's context, by catalogue entry (see ReconcilerOptions.contextFor). */
export type ContextExtras = (entry: CatalogueEntry) => Readonly<Record<string, unknown>> | undefined;

export interface ReconcilerOptions {
  /** The settings loaded at start (valid). */
  initial: Snapshot;
  /** Their warnings, so a reload logs only new ones. */
  warnings: SettingsProblem[];
  /** The files and pattern folders that load read (the watcher's list); default: the snapshot's files. */
  watched?: readonly string[];
  core: Core;
  /**
   * What a module's context carries beyond the reconciler's own (name,
   * settings, log, signal, core), by catalogue entry: the agent puts its
   * control interface there for WEBServer (agent.ts), built on top of the
   * reconciler, which knows nothing of it. Absent: nothing more.
   */
  contextFor?: ContextExtras;
  /** The modules it manages, in start order (the agent: catalogue()). */
  modules: readonly CatalogueEntry[];
  /** Wait before retrying a module after `failures` consecutive failures (default: backoff.ts). */
  backoff?: (failures: number) => number;
  /** The change stream to consume, when made before the reconciler (cli/run.ts); default: its own. */
  changes?: ChangeStream<ReconcilerStatus>;
  /** Time limit of each module's start, apply and stop (default: AGENT_MODULE_TIMEOUT_MS or 15 s). */
  moduleTimeoutMs?: number;
}
