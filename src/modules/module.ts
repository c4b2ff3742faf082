/**
 * The module contract. A module has a literal name, `start(ctx)`, `stop()`
 * and optionally `apply(next)`, which returns true when it took the new
 * settings in place (otherwise the reconciler restarts it). Everything a
 * module needs arrives in one context object.
 */
import type { Logger } from '../log.js';
import type { Snapshot } from '../settings/snapshot.js';
import type { Core } from '../core/core.js';

export interface ModuleContext {
  /** The module's catalogue name. */
  readonly name: string;
  /** The settings in force when the module starts; `apply` hands newer ones. */
  readonly settings: Snapshot;
  /** Child logger named after the module. */
  readonly log: Logger;
  /** Aborted when the module is being stopped. */
  readonly signal: AbortSignal;
  /** The core: queries, exec commands, channels, log, settings lookups. */
  readonly core: Core;
}

/**
 * Thrown by `apply(next)` when the new settings could not be taken and the
 * module keeps serving on the settings it had (a listener that cannot move
 * to a busy port, say). The reconciler records the failure, keeps the module
 * running, and tries again with backoff instead of restarting it.
 */
export class ApplyKeptError extends Error {
  override readonly name = 'ApplyKeptError';
}

export interface AgentModule {
  readonly name: string;
  /** Start serving; throw (or reject) to mark the module failed. */
  start(ctx: ModuleContext): Promise<void>;
  /**
   * Take new settings while running. Return true when handled in place,
   * false to ask the reconciler for a restart of this module; throw
   * ApplyKeptError when still running on the previous settings.
   */
  apply?(next: Snapshot): Promise<boolean>;
  /** Stop serving and release every resource. */
  stop(): Promise<void>;
}

/** What a catalogue entry's module file exports. */
export interface ModuleFactory {
  createModule(): AgentModule;
}
