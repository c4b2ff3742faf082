/**
 * One module's lifecycle: lazy import from the catalogue, shape check,
 * start (to a running module: module.ts), then its apply and stop, each
 * wrapped in try/catch and a time limit. A failure marks this module failed
 * and never throws to the caller, so the other modules keep running.
 */
import { AgentError, errorMessage } from '../errors.js';
import { sink } from '../log.js';
import { backoffMs, describeRetry } from './backoff.js';
import { runningShapeProblem, shapeProblem, type CatalogueEntry } from '../modules/catalogue.js';
import { ApplyKeptError, type ListeningAt, type RunningModule } from '../modules/module.js';
import type { Core } from '../core/core.js';
import type { ModuleOutcome, ModuleState } from '../core/control.js';
import type { ContextExtras } from './options.js';
import type { Snapshot } from '../settings/model/snapshot.js';
import { moduleView } from '../settings/model/module-view.js';
import { withTimeout } from './with-timeout.js';

export const MODULE_TIMEOUT_MS = Number(process.env.AGENT_MODULE_TIMEOUT_MS ?? 15000);

export class ModuleRunner {
  state: ModuleState = 'stopped';
  outcome: ModuleOutcome = 'none';
  error: string | undefined;
  /** Consecutive failures, for backoff. */
  failures = 0;
  /** The settings this module runs on: set by a successful start or apply. */
  appliedSettings: Snapshot | undefined;
  /** The settings of the latest start or apply that failed; cleared when one succeeds. */
  failedSettings: Snapshot | undefined;
  private running: RunningModule | undefined;
  private abort: AbortController | undefined;
  private readonly log;

  private readonly timeoutMs: number;

  /**
   * `retried`: the reconciler retries this runner's failures, so their log
   * lines name the next attempt (after `backoff(failures)` ms);
   * `timeoutMs`: the time limit of start, apply and stop; `contextFor`:
   * what the module's context carries beyond the runner's own members.
   */
  constructor(
    readonly entry: CatalogueEntry,
    private readonly core: Core,
    private readonly options: {
      retried?: boolean;
      timeoutMs?: number;
      backoff?: (failures: number) => number;
      contextFor?: ContextExtras;
    } = {},
  ) {
    this.log = sink.logger(`agent:module:${entry.name}`);
    this.timeoutMs = options.timeoutMs ?? MODULE_TIMEOUT_MS;
  }

  get loaded(): boolean {
    return this.state === 'running';
  }

  /** Where a running listening module is bound (undefined for others, or when it does not listen now). */
  listening(): ListeningAt | undefined {
    return this.state === 'running' ? this.running?.listening?.() : undefined;
  }

  /**
   * Import and start the module. Resolves true when it runs. A start that
   * outlives its time limit (or is cancelled) fails and its signal aborts,
   * which tells the module to give back what it took; if it still resolves
   * later, that running module is stopped then, so nothing it opened stays
   * open.
   */
  async start(settings: Snapshot): Promise<boolean> {
    const name = this.entry.name;
    this.state = 'starting';
    const abort = new AbortController();
    this.abort = abort;
    /** The module's own start() once called; `settled` once it ended, either way. */
    let started: Promise<RunningModule> | undefined;
    let settled = false;
    try {
      const mod = (await this.entry.load()).agentModule;
      const shape = shapeProblem(mod, name);
      if (shape) throw new AgentError('AGENT_ERR_MODULE_SHAPE', [name, shape]);
      const base = {
        name,
        settings: moduleView(this.entry.settings, settings, name),
        log: this.log,
        signal: abort.signal,
        core: this.core.forModule(this.entry.settings),
      };
      const ctx = { ...this.options.contextFor?.(this.entry), ...base };
      const starting = Promise.resolve().then(() => mod.start(ctx));
      started = starting;
      void starting.then(
        () => (settled = true),
        () => (settled = true),
      );
      const running = await withTimeout(name, 'start', this.timeoutMs, () => starting, abort.signal);
      const runningShape = runningShapeProblem(running);
      if (runningShape) throw new AgentError('AGENT_ERR_MODULE_SHAPE', [name, runningShape]);
      this.running = running;
      this.appliedSettings = settings;
      this.failedSettings = undefined;
      this.state = 'running';
      this.error = undefined;
      this.failures = 0;
      this.log.info(`module ${name} started`);
      return true;
    } catch (err) {
      this.failedSettings = settings;
      this.appliedSettings = undefined;
      this.abort = undefined;
      // A start still under way gives back what it took (module.ts).
      abort.abort();
      this.fail(new AgentError('AGENT_ERR_MODULE_START', [name, errorMessage(err)], { cause: err }));
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- settled is set by the start's own callback, which TypeScript does not see
      if (started && !settled) this.stopWhenSettled(started);
      return false;
    }
  }

  /**
   * Give up a start in progress at once (the agent is stopping): its signal
   * is aborted and start() fails without waiting for the time limit.
   */
  cancel(reason: string): void {
    if (this.state === 'starting') this.abort?.abort(new Error(reason));
  }

  /**
   * Hand new settings to a running module: 'applied' when taken in place,
   * 'restart' when the module needs a restart, 'kept' when it could not take
   * them and still runs on the previous ones (outcome failed, state running).
   */
  async apply(next: Snapshot): Promise<'applied' | 'restart' | 'kept'> {
    const apply = this.running?.apply?.bind(this.running);
    if (!apply || this.state !== 'running') return 'restart';
    try {
      const view = moduleView(this.entry.settings, next, this.entry.name);
      const taken = await withTimeout(this.entry.name, 'apply', this.timeoutMs, () => apply(view));
      if (!taken) return 'restart';
      this.appliedSettings = next;
      this.failedSettings = undefined;
      this.error = undefined;
      this.failures = 0;
      return 'applied';
    } catch (err) {
      const e = new AgentError('AGENT_ERR_MODULE_APPLY', [this.entry.name, errorMessage(err)]);
      if (!(err instanceof ApplyKeptError)) {
        this.log.error(e.message);
        return 'restart';
      }
      this.outcome = 'failed';
      this.failedSettings = next;
      this.error = `${e.message} (still running on the previous settings)`;
      this.failures++;
      this.log.error(`${this.error}${this.retryNote()}`);
      return 'kept';
    }
  }

  /** Stop the module; always ends in state stopped (or failed when stop itself failed). */
  async stop(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    this.appliedSettings = undefined;
    this.abort?.abort();
    this.abort = undefined;
    if (!running) {
      this.state = this.state === 'failed' ? 'failed' : 'stopped';
      return;
    }
    this.state = 'stopping';
    try {
      await withTimeout(this.entry.name, 'stop', this.timeoutMs, () => running.stop());
      this.state = 'stopped';
      this.log.info(`module ${this.entry.name} stopped`);
    } catch (err) {
      this.fail(new AgentError('AGENT_ERR_MODULE_STOP', [this.entry.name, errorMessage(err)]));
    }
  }

  /** A start that was given up ends after all: a running module is stopped then (one that failed gave back what it took). */
  private stopWhenSettled(started: Promise<RunningModule>): void {
    const name = this.entry.name;
    void started.then(
      async (late) => {
        this.log.warning(`module ${name}: the start that was given up finished after all; stopping that instance`);
        try {
          await withTimeout(name, 'stop', this.timeoutMs, () => late.stop());
        } catch (err) {
          this.log.error(new AgentError('AGENT_ERR_MODULE_STOP', [name, errorMessage(err)]).message);
        }
      },
      (err: unknown) =>
        this.log.warning(`module ${name}: the start that was given up failed after all: ${errorMessage(err)}`),
    );
  }

  private fail(err: AgentError): void {
    this.state = 'failed';
    this.outcome = 'failed';
    this.error = err.message;
    this.failures++;
    this.log.error(`${err.code}: ${err.message}${err.code === 'AGENT_ERR_MODULE_STOP' ? '' : this.retryNote()}`);
  }

  private retryNote(): string {
    return this.options.retried
      ? `; ${describeRetry(this.options.backoff?.(this.failures) ?? backoffMs(this.failures))}`
      : '';
  }
}
