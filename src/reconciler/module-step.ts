/**
 * Carrying out one module's plan step (load, unload, apply in place,
 * restart, unchanged) on its runner, and the order the modules' starts
 * finished in, which the agent stops them in reverse of. Never throws: the
 * runner records a failure (state and outcome `failed`) and logs it.
 */
import type { PlanStep } from '../settings/plan.js';
import type { Snapshot } from '../settings/snapshot.js';
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
export async function carryOutStep(step: PlanStep, runner: ModuleRunner, next: Snapshot, order: StartOrder): Promise<void> {
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

async function restart(runner: ModuleRunner, next: Snapshot, order: StartOrder): Promise<void> {
  await runner.stop();
  order.stopped(runner.entry.name);
  if (await runner.start(next)) {
    runner.outcome = 'restarted';
    order.started(runner.entry.name);
  }
}
