/**
 * The module contract. A module is a value: a literal name and
 * `start(ctx)`, which resolves to the running module, closed over the
 * context it was started with: `stop()` and optionally `apply(next)`,
 * which returns true when it took the new settings in place (otherwise the
 * reconciler restarts it). Everything a module needs arrives in one context
 * object; nothing of it is kept in module-level variables, so there is no
 * "not started yet" state to assert away.
 */
import type { Logger } from '../log.js';
import type { ModuleSettings } from '../settings/model/module-view.js';
import type { Core } from '../core/core.js';

export interface ModuleContext<S = ModuleSettings> {
  /** The module's catalogue name. */
  readonly name: string;
  /**
   * The module's view of the settings in force when it starts (its own
   * sections only, complete and typed: settings/model/module-view.ts); `apply`
   * hands newer ones.
   */
  readonly settings: S;
  /** Child logger named after the module. */
  readonly log: Logger;
  /** Aborted when the start is given up (time limit, agent stopping) and when the module is being stopped. */
  readonly signal: AbortSignal;
  /** The core: queries, exec commands, channels, log, settings lookups. */
  readonly core: Core;
}
// The control interface (load, unload, edit settings) is not part of this
// context: the module runner adds it only for the module whose catalogue
// entry asks for it (WEBServer: modules/web-server/index.ts), and no other
// module may import core/control.ts (.dependency-cruiser.cjs).

/** Thrown by `apply(next)` when the module keeps serving on its previous settings (errors.ts). */
export { ApplyKeptError } from '../errors.js';

/** `S`: the module's settings view, `SettingsOf<'Name'>` (settings/model/module-table.ts). */
export interface AgentModule<S = ModuleSettings, C extends ModuleContext<S> = ModuleContext<S>> {
  readonly name: string;
  /**
   * Start serving and resolve to the running module. Throw (or reject) to
   * mark the module failed, having given back whatever the start took; when
   * `ctx.signal` aborts first, give it back and reject (a running module
   * that comes after all is stopped by the runner). releases.ts does both.
   * `C`: a wider context (WEBServer's carries the control interface).
   */
  start(ctx: C): Promise<RunningModule<S>>;
}

/** A started module, closed over the context of its start. */
export interface RunningModule<S = ModuleSettings> {
  /**
   * Take new settings while running. Return true when handled in place,
   * false to ask the reconciler for a restart of this module; throw
   * ApplyKeptError when still running on the previous settings.
   */
  apply?(next: S): Promise<boolean>;
  /** Stop serving and release every resource. */
  stop(): Promise<void>;
  /** A listening module: the address and port it is bound to now (the real port when 0 was asked for). */
  listening?(): ListeningAt | undefined;
}

/** Where a listener is bound. */
export interface ListeningAt {
  address: string;
  port: number;
}

/** What a catalogue entry's module file exports: the module as a value. */
export interface ModuleFile {
  readonly agentModule: AgentModule;
}
