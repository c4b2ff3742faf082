/** What a Reconciler is made with (reconciler.ts). */
import type { AgentControl, SettingsProblem } from '../core/control.js';
import type { Core } from '../core/core.js';
import type { CatalogueEntry } from '../modules/catalogue.js';
import type { Snapshot } from '../settings/snapshot.js';

export interface ReconcilerOptions {
  /** The settings loaded at start (valid). */
  initial: Snapshot;
  /** Their warnings, so a reload logs only new ones. */
  warnings: SettingsProblem[];
  /** The files and pattern folders that load read (the watcher's list); default: the snapshot's files. */
  watched?: readonly string[];
  core: Core;
  /**
   * The control interface (load, unload, edit settings), handed only to the
   * modules whose catalogue entry asks for it (WEBServer); absent, no module
   * gets one.
   */
  control?: AgentControl;
  /** The modules it manages, in start order (the agent: catalogue()). */
  modules: readonly CatalogueEntry[];
  /** Wait before retrying a module after `failures` consecutive failures (default: backoff.ts). */
  backoff?: (failures: number) => number;
  /** Time limit of each module's start, apply and stop (default: AGENT_MODULE_TIMEOUT_MS or 15 s). */
  moduleTimeoutMs?: number;
}
