/**
 * The reconciler: desired state is the last valid, resolved settings;
 * running state is what each module has applied. Callers only ask for a
 * reload or a run-time load/unload. Reconciles are queued per module
 * (keyed-queue.ts): one run per module at a time, modules side by side, so
 * a module whose start hangs holds up neither the others nor a reload;
 * each run is idempotent and computed from the current desired and
 * observed state (level-based, not event-based). Every reload comes through
 * the one change stream (settings/store/change-stream.ts: file events,
 * SIGHUP, the API, a pull, an edit's write), which coalesces triggers into
 * batches, reads the files one batch at a time and hands the reconciler the
 * load (it reads no file itself); each reload then waits
 * for the module steps it queued itself, never
 * for a module still busy with an earlier step (a start that hangs), so
 * the next reload need not wait either. An invalid file is never applied:
 * the last good state stays and the problems are recorded. Failed modules
 * are retried with backoff, on their own schedule: a reload leaves a
 * failed module for its retry unless that module's settings changed. The
 * catalogue is an option: tests drive the reconciler with fixture modules.
 */
import { sink } from '../log.js';
import { errorMessage } from '../errors.js';
import { backoffMs } from './backoff.js';
import type { CatalogueEntry } from '../modules/catalogue.js';
import type { ModuleStatus, ReconcilerStatus, SettingsProblem } from '../core/control.js';
import { planStep, wantsLoaded, type PlanStep } from '../settings/model/plan.js';
import type { Snapshot } from '../settings/model/snapshot.js';
import { KeyedQueue } from './keyed-queue.js';
import { carryOutStep, moduleStatusOf, StartOrder, waitsForRetry } from './module-step.js';
import { ModuleRunner } from './module-runner.js';
import type { ReconcilerOptions } from './options.js';
import { RetryTimers } from './retry-timers.js';
import { reloadFailure } from '../settings/model/problem.js';
import { ChangeStream, loadingConsumer, type BatchLoad, type ChangeBatch } from '../settings/store/change-stream.js';
import type { ReloadHow, ValidLoad } from '../settings/store/change-stream.js';
import { ReloadRecord, type ReloadResult } from './reload-record.js';

const log = sink.logger('agent:reconciler');

export type { ReconcilerOptions } from './options.js';
export type { ReloadHow, ValidLoad } from '../settings/store/change-stream.js';

export class Reconciler {
  private applied: Snapshot;
  private readonly runners = new Map<string, ModuleRunner>();
  private readonly overrides = new Map<string, boolean>();
  private readonly startOrder = new StartOrder();
  /** The one way in of every reload: the store reads each batch, which is taken and its module steps queued one at a time. */
  private readonly changes: ChangeStream<ReconcilerStatus>;
  private readonly queue = new KeyedQueue();
  private readonly modules: readonly CatalogueEntry[];
  private readonly backoff: (failures: number) => number;
  private readonly retries = new RetryTimers();
  private stopped = false;
  private readonly record: ReloadRecord;
  /** Called after every reload attempt, for metrics and tests. */
  onReload: ((status: ReconcilerStatus) => void) | undefined;

  constructor(options: ReconcilerOptions) {
    const { initial, warnings, core } = options;
    this.applied = initial;
    this.record = new ReloadRecord(initial.hash, options.watched ?? initial.sources.map((src) => src.file), warnings);
    const consumer = loadingConsumer<ReconcilerStatus>(
      () => (this.stopped ? undefined : { snapshot: this.applied, ...this.record.tree() }),
      (batch, load) => this.reloadBatch(batch, load),
    );
    this.changes = options.changes ?? new ChangeStream(consumer);
    if (options.changes) options.changes.consumeWith(consumer);
    this.modules = options.modules;
    this.backoff = options.backoff ?? backoffMs;
    const runnerOptions = {
      retried: true,
      backoff: this.backoff,
      ...(options.moduleTimeoutMs !== undefined ? { timeoutMs: options.moduleTimeoutMs } : {}),
      ...(options.contextFor ? { contextFor: options.contextFor } : {}),
    };
    for (const e of this.modules) this.runners.set(e.name, new ModuleRunner(e, core, runnerOptions));
  }

  settings(): Snapshot {
    return this.applied;
  }

  /** Every file (and pattern folder) the last read of the settings touched: the main file and what it includes, good or bad. */
  watched(): readonly string[] {
    return this.record.watchedFiles;
  }

  /** True once stop() was called: no reload applies anything, and an edit writes nothing (settings/store/edit-flow.ts). */
  get stopping(): boolean {
    return this.stopped;
  }

  /**
   * Load the modules of the initial settings, side by side; resolves when
   * each start is done or past its time limit. A reload meanwhile does not
   * wait for it (module runs are queued per module).
   */
  async start(): Promise<void> {
    await this.settle(this.queueAll(), ['start']);
  }

  /**
   * Push a trigger into the change stream; resolves with the status after the reload that covers it (which
   * re-reads the files, validates, and applies them if valid; `how`: change-stream.ts). Never rejects.
   */
  reload(reason: string, how: ReloadHow = {}): Promise<ReconcilerStatus> {
    return this.changes.push({ reason, ...how });
  }

  /** The stream's consumer: one batch's load taken and its module steps queued, then (`result`) those steps. */
  private async reloadBatch(
    batch: ChangeBatch,
    load: BatchLoad | undefined,
  ): Promise<{ result: Promise<ReconcilerStatus> }> {
    let runs: Promise<unknown> | undefined;
    try {
      if (load && this.take(load, batch.reasons)) runs = this.queueAll();
    } catch (err) {
      this.failed(batch, err);
    }
    // Not awaited here: the next batch reads while these steps run.
    return { result: this.settleBatch(batch, runs) };
  }

  private async settleBatch(batch: ChangeBatch, runs: Promise<unknown> | undefined): Promise<ReconcilerStatus> {
    try {
      if (runs) await this.settle(runs, batch.reasons);
    } catch (err) {
      this.failed(batch, err);
    }
    return this.status();
  }

  /** The one catch of every reload (the watcher's, SIGHUP, the API's): never rejects, so never an unhandled rejection. */
  private failed(batch: ChangeBatch, err: unknown): void {
    this.reject([reloadFailure(this.applied.file, err)], this.record.warnings, '', batch.reasons);
  }

  /**
   * Make a batch's load the desired state when valid. False when it was not applied (refused: recorded and
   * logged). `unchanged`: the files hold the applied tree, the modules are reconciled with it.
   */
  private take(load: BatchLoad, reasons: readonly string[]): boolean {
    if (load === 'unchanged') {
      this.record.reconciling('unchanged', reasons);
      return true;
    }
    if (load.hash) this.record.read(load.hash, load.watched);
    if (!load.ok) {
      this.reject(load.problems, load.warnings, load.hash, reasons);
      return false;
    }
    this.adopt(load, reasons);
    return true;
  }

  /** Make a valid load the desired state (the reconcile that follows carries it out). */
  private adopt(result: ValidLoad, reasons: readonly string[]): void {
    const previous = this.applied;
    for (const m of Object.keys(result.snapshot.modules)) {
      if (previous.modules[m] !== result.snapshot.modules[m]) this.overrides.delete(m);
    }
    this.applied = result.snapshot;
    this.record.accepted(result.warnings);
    this.record.reconciling(previous.hash === result.hash ? 'unchanged' : 'changed', reasons);
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
    // Asked for by name: a failed module is tried again now, not at its next retry.
    this.retries.cancel(entry.name);
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
    await this.changes.idle();
    await this.queue.idle();
    for (const name of this.startOrder.takeReversed()) {
      const runner = this.runners.get(name);
      if (runner) await this.queue.run(name, () => runner.stop());
    }
  }

  status(): ReconcilerStatus {
    const modules = this.modules.map((e) => this.moduleStatus(e.name) as ModuleStatus);
    return {
      file: this.applied.file,
      appliedHash: this.applied.hash,
      ...this.record.fields(),
      modules,
      drift: modules.filter((m) => m.drift).map((m) => ({ module: m.name, loaded: m.loaded, enabled: m.enabled })),
    };
  }

  moduleStatus(name: string): ModuleStatus | undefined {
    const entry = this.find(name);
    const r = entry && this.runners.get(entry.name);
    if (!entry || !r) return undefined;
    return moduleStatusOf(r, this.applied.modules[entry.name] === true, this.overrides.has(entry.name));
  }

  /** The catalogue entry of a module, by name, case-insensitively. */
  private find(name: string): CatalogueEntry | undefined {
    const lower = name.toLowerCase();
    return this.modules.find((e) => e.name.toLowerCase() === lower);
  }

  /**
   * Queue a run for every module now; resolves when they are done, except a module already busy (a start in
   * progress): its queued run picks the new settings up in its turn, and waiting would hold the reload hostage.
   */
  private queueAll(): Promise<unknown> {
    const waits: Promise<void>[] = [];
    for (const e of this.modules) {
      const busy = this.queue.busy(e.name);
      const run = this.queue.run(e.name, () => this.reconcileOne(e.name));
      if (busy) log.info(`${e.name}: still busy with its previous step; the new settings follow when it is done`);
      else waits.push(run);
    }
    return Promise.all(waits);
  }

  /** Wait for a reload's module steps, then record its result. */
  private async settle(runs: Promise<unknown>, reasons: readonly string[]): Promise<void> {
    await runs;
    this.finish(this.anyFailed() ? 'partial' : 'ok', reasons);
  }

  /** Carry out one module's plan step, from what it runs on now to the current desired state. Never throws. */
  private async reconcileOne(name: string): Promise<void> {
    if (this.stopped) return;
    const runner = this.runners.get(name) as ModuleRunner;
    const next = this.applied;
    const loaded = new Set([...this.runners.values()].filter((r) => r.loaded).map((r) => r.entry.name));
    // Level-based: compare with what this module really runs on, not with the last reload.
    const step: PlanStep = planStep(runner.entry, {
      applied: runner.appliedSettings,
      desired: next,
      loaded,
      overrides: this.overrides,
    });
    if (this.retries.pending(name) && waitsForRetry(step, runner, next)) {
      log.debug(`${name}: failed; left for its next retry (its settings did not change)`);
      return;
    }
    await carryOutStep(step, runner, next, this.startOrder);
    // A failure was logged by the runner, once, with the time of the next retry.
    if (step.action !== 'unchanged' && runner.outcome !== 'failed')
      log.info(`${name}: ${step.action} (${step.reason})`);
    this.scheduleRetry(name);
  }

  private scheduleRetry(name: string): void {
    const runner = this.runners.get(name) as ModuleRunner;
    this.retries.cancel(name);
    const failed = runner.state === 'failed' || (runner.loaded && runner.outcome === 'failed');
    if (this.stopped || !failed || !wantsLoaded(name, this.applied, this.overrides)) return;
    this.retries.schedule(
      name,
      this.backoff(runner.failures),
      () => void this.queue.run(name, () => this.reconcileOne(name)),
    );
  }

  private reject(problems: SettingsProblem[], warnings: SettingsProblem[], hash: string, why: readonly string[]): void {
    this.record.rejected(problems, warnings, hash, this.applied.hash);
    this.finish('invalid', why);
  }

  private finish(result: ReloadResult, reasons: readonly string[]): void {
    this.record.finished(result, reasons);
    try {
      this.onReload?.(this.status());
    } catch (err) {
      log.error(`after the reload: ${errorMessage(err)}`); // observers (log level, secrets masked in logs, watched files) never break reconciling
    }
  }

  private anyFailed(): boolean {
    return [...this.runners.values()].some((r) => r.state === 'failed' || r.outcome === 'failed');
  }
}
