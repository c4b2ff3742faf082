/**
 * What the running agent offers to the web API and the CLI: modules,
 * reconciler status, settings edits. Implemented by src/agent.ts; defined
 * here so that web code depends on an interface, not on the reconciler.
 */
import type { LogRecord, LogLevel } from '../log.js';
import type { SettingsView } from '../settings/store/edit-tree.js';
import type { SettingsEdit } from '../settings/ini/ini-text-edit.js';
import type { SettingsProblem } from '../settings/model/problem.js';
import type { SourceStatus } from '../settings/source/source-status.js';

// Defined by the settings layers, which sit below core.
export type { SettingsEdit, SettingsProblem, SourceStatus };
import type { Snapshot } from '../settings/model/snapshot.js';

export type ModuleState = 'stopped' | 'starting' | 'running' | 'stopping' | 'failed';
export type ModuleOutcome = 'applied' | 'failed' | 'unchanged' | 'loaded' | 'unloaded' | 'restarted' | 'none';

export interface ModuleStatus {
  name: string;
  title: string;
  description: string;
  /** Live in the process now. */
  loaded: boolean;
  /** `[/modules] X = enabled` in the applied settings. */
  enabled: boolean;
  state: ModuleState;
  /** Outcome of the last reconcile step for this module. */
  outcome: ModuleOutcome;
  /** Error message of the last failure, if any. */
  error?: string;
  /** True when loaded differs from enabled because of a run-time load or unload. */
  drift: boolean;
  /** A listening module's address and port now (the real port when the settings say 0). */
  listening?: { address: string; port: number };
}

export interface ReconcilerStatus {
  file: string;
  /** sha256 of the file on disk at the last read. */
  fileHash: string;
  /** sha256 of the settings in force. */
  appliedHash: string;
  lastReload: string | null;
  lastResult: 'ok' | 'invalid' | 'partial' | 'none';
  /** The reason of every trigger the last reload covered (file events, SIGHUP, the API, a pull, an edit), in order. */
  lastReasons?: string[];
  /** Problems of the last rejected edit (empty after a good reload). */
  problems: SettingsProblem[];
  warnings: SettingsProblem[];
  reloads: { ok: number; invalid: number; partial: number };
  modules: ModuleStatus[];
  drift: { module: string; loaded: boolean; enabled: boolean }[];
  /** The settings source ([/settings/source]), when the settings name one. */
  source?: SourceStatus;
}

export interface AgentControl {
  /**
   * The whole settings in force (every section, objects, origins), for the
   * settings API; modules see only their own view (settings/model/module-view.ts).
   * Values the schema marks x-secret are the caller's to mask (effective.ts).
   */
  settings(): Snapshot;
  modules(): ModuleStatus[];
  module(name: string): ModuleStatus | undefined;
  /** Load a module now (run-time state only; the file is unchanged and the drift shows). */
  load(name: string): Promise<ModuleStatus>;
  unload(name: string): Promise<ModuleStatus>;
  /** Edit `[/modules] name = enabled|disabled` in the settings file; the reconciler applies it. */
  enable(name: string): Promise<ModuleStatus>;
  disable(name: string): Promise<ModuleStatus>;
  status(): ReconcilerStatus;
  /** Ask for a reconcile now (re-reads the file). */
  reload(): Promise<ReconcilerStatus>;
  /** Pull the settings source now (AGENT_ERR_SOURCE_NONE without one); resolves once applied or refused. */
  pullSettings(): Promise<SourceStatus>;
  /**
   * Set or remove keys and sections in the settings file through the
   * minimal-edit writer, then reconcile; resolves with the files written.
   * With `[/includes]` each edit goes to the file that holds its key
   * (settings/store/edit-tree.ts). `edits` may be a function of the current
   * content (the merged view of every file; it runs under the writer's
   * lock; it may throw to refuse). Refused, with nothing written: a missing
   * or invalid file (409), and an edit whose result (the whole tree, every
   * include followed) would not validate (AGENT_ERR_HTTP_UNPROCESSABLE, 422,
   * the problems as `details`).
   */
  editSettings(edits: SettingsEdits): Promise<string[]>;
  logs(levels?: ReadonlySet<LogLevel>): readonly LogRecord[];
  /** Error and critical entries counted since the start or the last clear, and the last one's message. */
  logStatus(): { errors: number; lastError: string };
  /** Empty the in-memory log and reset its counters (indexes keep counting); returns how many entries were dropped. */
  clearLogs(): number;
  info(): { name: string; version: string; started: string; pid: number; settings: string };
}

/** Edits, or a function that computes them from the current content of the settings tree. */
export type SettingsEdits = readonly SettingsEdit[] | ((view: SettingsView) => readonly SettingsEdit[]);
