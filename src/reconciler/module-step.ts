/**
 * Carrying out one module's plan step (load, unload, apply in place,
 * restart, unchanged) on its runner, whether a failed module waits for its
 * retry, the order the modules' starts finished in (the agent stops them in
 * reverse), and a module's status. Never throws: the runner records a
 * failure (state and outcome `failed`) and logs it.
 */
import { moduleSettingsChanged, type PlanStep } from '../settings/model/plan.js';
import type { ModuleStatus } from '../core/control.js';
import type { Snapshot } from '../settings/model/snapshot.js';
import type { ModuleRunner } from './module-runner.js';

/** Module names in the order their starts finished. */
export class StartOrder {
  private names: string[] = [];

  /** `name` started (again): it moves to the end. */
  started(name: string): void {
    this.names = [...this.names.filter((n) => n !== name), name];
  }

  stopped(name: string): void {
    this.names = this.names.filter((n) => n !== name);
  }

  /** The names to stop, last started first; the order is emptied. */
  takeReversed(): string[] {
    const reversed = [...this.names].reverse();
    this.names = [];
    return reversed;
  }
}

/** Carry out `step` on `runner`, towards the settings `next`; sets the runner's outcome. */
export async function carryOutStep(
  step: PlanStep,
  runner: ModuleRunner,
  next: Snapshot,
  order: StartOrder,
): Promise<void> {
  const name = runner.entry.name;
  switch (step.action) {
    case 'load':
      if (await runner.start(next)) {
        runner.outcome = 'loaded';
        order.started(name);
      }
      break;
    case 'unload':
      await runner.stop();
      if (runner.state !== 'failed') runner.outcome = 'unloaded';
      order.stopped(name);
      break;
    case 'apply': {
      const r = await runner.apply(next);
      if (r === 'applied') runner.outcome = 'applied';
      else if (r === 'restart') await restart(runner, next, order);
      break;
    }
    case 'restart':
      await restart(runner, next, order);
      break;
    case 'unchanged':
      if (runner.state !== 'failed' && runner.outcome !== 'failed') runner.outcome = 'unchanged';
      break;
  }
}

/**
 * True when `step` would only try again what failed with the same settings
 * (a start, or an apply the module kept its previous settings through):
 * a failed module waits for its retry (backoff) then, whatever else the
 * reload changed. A change of its own settings (its view) is tried at once.
 */
export function waitsForRetry(step: PlanStep, runner: ModuleRunner, next: Snapshot): boolean {
  const failed = runner.failedSettings;
  if (failed === undefined || !['load', 'restart', 'apply'].includes(step.action)) return false;
  return !moduleSettingsChanged(runner.entry, failed, next);
}

async function restart(runner: ModuleRunner, next: Snapshot, order: StartOrder): Promise<void> {
  await runner.stop();
  order.stopped(runner.entry.name);
  if (await runner.start(next)) {
    runner.outcome = 'restarted';
    order.started(runner.entry.name);
  }
}

/** A module's status (for the API): `enabled` in the file, `overridden` by a run-time load or unload (then a difference is drift). */
export function moduleStatusOf(runner: ModuleRunner, enabled: boolean, overridden: boolean): ModuleStatus {
  const { entry } = runner;
  return {
    name: entry.name,
    title: entry.title,
    description: entry.description,
    loaded: runner.loaded,
    enabled,
    state: runner.state,
    outcome: runner.outcome,
    ...(runner.error !== undefined ? { error: runner.error } : {}),
    drift: overridden && runner.loaded !== enabled,
    ...listeningOf(runner),
  };
}

/** Only the address and port (a listener's AddressInfo carries its family too). */
function listeningOf(runner: ModuleRunner): Pick<ModuleStatus, 'listening'> {
  const at = runner.listening();
  return at ? { listening: { address: at.address, port: at.port } } : {};
}
