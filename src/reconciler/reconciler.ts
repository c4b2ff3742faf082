/**
 * The reconciler: desired state is the last valid, resolved settings;
 * running state is what each module has applied. Callers only ask for a
 * reload or a run-time load/unload. Reconciles are queued per module
 * (keyed-queue.ts): one run per module at a time, modules side by side, so
 * a module whose start hangs holds up neither the others nor a reload;
 * each run is idempotent and computed from the current desired and
 * observed state (level-based, not event-based). Reloads (reading the
 * file) are serialized. An invalid file is never applied: the last good
 * state stays and the problems are recorded. Failed modules are retried
 * with backoff.
 *
 * The module catalogue is an option, so tests drive the reconciler with
 * fixture modules; the agent passes modules/catalogue.ts.
 */
import { fsReason } from '../errors.js';
import { sink } from '../log.js';
import { backoffMs } from './backoff.js';
import type { CatalogueEntry } from '../modules/catalogue.js';
import type { Core } from '../core/core.js';
import type { AgentControl, ModuleStatus, ReconcilerStatus, SettingsProblem } from '../core/control.js';
import { describeProblem } from '../settings/problem.js';
import { loadSettingsFile } from '../settings/load.js';
import { SettingsReader } from '../settings/includes.js';
import { planStep, wantsLoaded, type PlanStep } from '../settings/plan.js';
import type { Snapshot } from '../settings/snapshot.js';
import { KeyedQueue } from './keyed-queue.js';
import { carryOutStep, StartOrder } from './module-step.js';
import { ModuleRunner } from './module-runner.js';
import { RetryTimers } from './retry-timers.js';
import { readReplaced, readStable } from './stable-read.js';
import type { RenameWitness } from './watcher.js';

const log = sink.logger('agent:reconciler');

export interface ReconcilerOptions {
  /** The settings loaded at start (valid). */
  initial: Snapshot;
  /** Their warnings, so a reload logs only new ones. */
  warnings: SettingsProblem[];
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

export class Reconciler {
  private applied: Snapshot;
  private readonly runners = new Map<string, ModuleRunner>();
  private readonly overrides = new Map<string, boolean>();
  private readonly startOrder = new StartOrder();
  /** Serializes reloads (reading and validating the file). */
  private chain: Promise<unknown> = Promise.resolve();
  private readonly queue = new KeyedQueue();
  private readonly modules: readonly CatalogueEntry[];
  private readonly backoff: (failures: number) => number;
  private readonly retries = new RetryTimers();
  private stopped = false;
  private fileHash: string;
  private watchedFiles: readonly string[];
  private lastReload: string | null = null;
  private lastResult: ReconcilerStatus['lastResult'] = 'none';
  private problems: SettingsProblem[] = [];
  private warnings: SettingsProblem[];
  private readonly counts = { ok: 0, invalid: 0, partial: 0 };
  /** Called after every reload attempt, for metrics and tests. */
  onReload: ((status: ReconcilerStatus) => void) | undefined;

  constructor(options: ReconcilerOptions) {
    const { initial, warnings, core } = options;
    this.applied = initial;
    this.fileHash = initial.hash;
    this.watchedFiles = initial.sources.map((src) => src.file);
    this.warnings = warnings;
    this.modules = options.modules;
    this.backoff = options.backoff ?? backoffMs;
    const runnerOptions = { retried: true, backoff: this.backoff, ...(options.moduleTimeoutMs !== undefined ? { timeoutMs: options.moduleTimeoutMs } : {}), ...(options.control ? { control: options.control } : {}) };
    for (const e of this.modules) this.runners.set(e.name, new ModuleRunner(e, core, runnerOptions));
  }

  settings(): Snapshot {
    return this.applied;
  }

  /** Every file (and pattern folder) the last read of the settings touched: the main file and what it includes, good or bad. */
  watched(): readonly string[] {
    return this.watchedFiles;
  }

  /**
   * Load the modules of the initial settings, side by side; resolves when
   * each start is done or past its time limit. A reload meanwhile does not
   * wait for it (module runs are queued per module).
   */
  async start(): Promise<void> {
    await this.reconcileAll();
    this.finish(this.anyFailed() ? 'partial' : 'ok');
  }

  /**
   * Re-read the file, validate, and apply it if valid. `replaced`: the
   * watcher saw the file replaced by rename, so it is complete and is read
   * at once, and `untouched` (the watcher's rename witness) says whether
   * anyone wrote it since; otherwise it is read once settled
   * (stable-read.ts).
   */
  reload(reason: string, replaced = false, untouched?: RenameWitness): Promise<ReconcilerStatus> {
    return this.serial(async () => {
      if (this.stopped) return this.status();
      let bytes: Buffer;
      try {
        bytes = replaced ? await readReplaced(this.applied.file, untouched) : await readStable(this.applied.file);
      } catch (err) {
        this.reject([{ code: 'AGENT_ERR_SETTINGS_UNREADABLE', severity: 'error', message: `cannot read settings file ${this.applied.file}: ${fsReason(err)}`, file: this.applied.file, line: 0, col: 0 }], [], '');
        return this.status();
      }
      // Included files are read once settled too; each reload reads the tree afresh.
      const result = await loadSettingsFile(this.applied.file, { bytes, reader: new SettingsReader({ read: (f) => readStable(f) }) });
      const hash = result.hash;
      this.fileHash = hash;
      this.watchedFiles = result.watched;
      if (!result.ok) {
        this.reject(result.problems, result.warnings, hash);
        return this.status();
      }
      const previous = this.applied;
      for (const m of Object.keys(result.snapshot.modules)) {
        if (previous.modules[m] !== result.snapshot.modules[m]) this.overrides.delete(m);
      }
      this.applied = result.snapshot;
      this.problems = [];
      // Each warning is logged once: a reload that keeps it says nothing new.
      const seen = new Set(this.warnings.map(warningKey));
      this.warnings = result.warnings;
      for (const w of result.warnings) if (!seen.has(warningKey(w))) log.warning(describeProblem(w), { file: w.file, line: w.line });
      log.info(`settings ${previous.hash === hash ? 'unchanged' : 'changed'} (${reason}); reconciling`);
      await this.reconcileAll();
      this.finish(this.anyFailed() ? 'partial' : 'ok');
      return this.status();
    });
  }

  /**
   * Load or unload a module at run time (the file is unchanged; the drift
   * shows in the status). Waits for that module's own queue only.
   */
  async setLoaded(name: string, loaded: boolean): Promise<ModuleStatus> {
    const entry = this.find(name);
    if (!entry) throw new Error(`unknown module ${name}`);
    if (this.applied.modules[entry.name] === loaded) this.overrides.delete(entry.name);
    else this.overrides.set(entry.name, loaded);
    await this.queue.run(entry.name, () => this.reconcileOne(entry.name));
    return this.moduleStatus(entry.name) as ModuleStatus;
  }

  /**
   * Stop every module in reverse start order. Starts still in progress are
   * given up at once (their modules see the abort signal).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.retries.cancelAll();
    for (const r of this.runners.values()) r.cancel('the agent is stopping');
    await this.serial(() => this.queue.idle());
    for (const name of this.startOrder.takeReversed()) {
      const runner = this.runners.get(name);
      if (runner) await this.queue.run(name, () => runner.stop());
    }
  }

  status(): ReconcilerStatus {
    const modules = this.modules.map((e) => this.moduleStatus(e.name) as ModuleStatus);
    return {
      file: this.applied.file,
      fileHash: this.fileHash,
      appliedHash: this.applied.hash,
      lastReload: this.lastReload,
      lastResult: this.lastResult,
      problems: this.problems,
      warnings: this.warnings,
      reloads: { ...this.counts },
      modules,
      drift: modules.filter((m) => m.drift).map((m) => ({ module: m.name, loaded: m.loaded, enabled: m.enabled })),
    };
  }

  moduleStatus(name: string): ModuleStatus | undefined {
    const entry = this.find(name);
    const r = entry && this.runners.get(entry.name);
    if (!entry || !r) return undefined;
    const enabled = this.applied.modules[entry.name] === true;
    return {
      name: entry.name,
      title: entry.title,
      description: entry.description,
      loaded: r.loaded,
      enabled,
      state: r.state,
      outcome: r.outcome,
      ...(r.error !== undefined ? { error: r.error } : {}),
      drift: this.overrides.has(entry.name) && r.loaded !== enabled,
    };
  }

  /** The catalogue entry of a module, by name, case-insensitively. */
  private find(name: string): CatalogueEntry | undefined {
    const lower = name.toLowerCase();
    return this.modules.find((e) => e.name.toLowerCase() === lower);
  }

  /**
   * Queue a run for every module, in catalogue order, and wait for them,
   * except a module already busy (a start still in progress, say): its
   * queued run picks the new settings up when it gets its turn, and waiting
   * for it would hold this reload (and the API edit behind it) hostage.
   */
  private async reconcileAll(): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const e of this.modules) {
      const busy = this.queue.busy(e.name);
      const run = this.queue.run(e.name, () => this.reconcileOne(e.name));
      if (busy) log.info(`${e.name}: still busy with its previous step; the new settings follow when it is done`);
      else waits.push(run);
    }
    await Promise.all(waits);
  }

  /** Carry out one module's plan step, from what it runs on now to the current desired state. Never throws. */
  private async reconcileOne(name: string): Promise<void> {
    if (this.stopped) return;
    const runner = this.runners.get(name) as ModuleRunner;
    const next = this.applied;
    const loaded = new Set([...this.runners.values()].filter((r) => r.loaded).map((r) => r.entry.name));
    // Level-based: compare with what this module really runs on, not with the last reload.
    const step: PlanStep = planStep(runner.entry, { applied: runner.appliedSettings, desired: next, loaded, overrides: this.overrides });
    await carryOutStep(step, runner, next, this.startOrder);
    // A failure was logged by the runner, once, with the time of the next retry.
    if (step.action !== 'unchanged' && runner.outcome !== 'failed') log.info(`${name}: ${step.action} (${step.reason})`);
    this.scheduleRetry(name);
  }

  private scheduleRetry(name: string): void {
    const runner = this.runners.get(name) as ModuleRunner;
    this.retries.cancel(name);
    const failed = runner.state === 'failed' || (runner.loaded && runner.outcome === 'failed');
    if (this.stopped || !failed || !wantsLoaded(name, this.applied, this.overrides)) return;
    this.retries.schedule(name, this.backoff(runner.failures), () => void this.queue.run(name, () => this.reconcileOne(name)));
  }

  private reject(problems: SettingsProblem[], warnings: SettingsProblem[], hash: string): void {
    this.problems = problems;
    this.warnings = warnings;
    if (hash) this.fileHash = hash;
    log.error(`settings rejected: ${problems.length} problem(s); keeping the last good settings (${this.applied.hash.slice(0, 12)})`);
    for (const p of problems) log.error(describeProblem(p), { file: p.file, line: p.line });
    this.finish('invalid');
  }

  private finish(result: 'ok' | 'invalid' | 'partial'): void {
    this.lastReload = new Date().toISOString();
    this.lastResult = result;
    this.counts[result]++;
    try {
      this.onReload?.(this.status());
    } catch {
      // Observers must not break reconciling.
    }
  }

  private anyFailed(): boolean {
    return [...this.runners.values()].some((r) => r.state === 'failed' || r.outcome === 'failed');
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => undefined);
    return run;
  }
}

function warningKey(p: SettingsProblem): string {
  return `${p.code}|${p.section ?? ''}|${p.key ?? ''}|${p.message}`;
}
