/**
 * The static module catalogue: each module of the table the settings layer
 * reads (settings/model/module-table.ts, made from each module's descriptor.ts)
 * with the lazy import of its code (generated/loaders.ts, made with it), so
 * a module's code loads only when the module is enabled. Each module's
 * index.ts exports the module as a value, `agentModule: AgentModule`; its
 * shape is checked on load, and the running module's when it starts.
 */
import type { AgentControl } from '../core/control.js';
import type { AgentModule, ModuleFile, RunningModule } from './module.js';
import { moduleInfo, moduleTable, type ModuleInfo, type ModuleName } from '../settings/model/module-table.js';
import { LOADERS } from './generated/loaders.js';

/**
 * A row of the module table with its loader. A row's `control` says the
 * module receives the control interface (load, unload, enable and disable
 * modules, edit settings, the whole snapshot, logs) as `ctx.control`; no
 * other module's context has it.
 */
export interface CatalogueEntry extends ModuleInfo {
  readonly load: () => Promise<ModuleFile>;
}

const entries: readonly CatalogueEntry[] = moduleTable().map((m) => ({ ...m, load: LOADERS[m.name as ModuleName] }));
const byName = new Map(entries.map((e) => [e.name, e]));

export function catalogue(): readonly CatalogueEntry[] {
  return entries;
}

/** Find a module by name, case-insensitively. */
export function findModule(name: string): CatalogueEntry | undefined {
  const info = moduleInfo(name);
  return info && byName.get(info.name);
}

/** Check that what a module file exports has the module shape; returns the problem or undefined. */
export function shapeProblem(mod: unknown, expectedName: string): string | undefined {
  if (typeof mod !== 'object' || mod === null) return 'agentModule is not an object';
  const m = mod as Partial<AgentModule>;
  if (m.name !== expectedName) return `name is ${JSON.stringify(m.name)}, expected ${JSON.stringify(expectedName)}`;
  if (typeof m.start !== 'function') return 'start is not a function';
  return undefined;
}

/** Check that what a module's start resolved to has the running module's shape; returns the problem or undefined. */
export function runningShapeProblem(running: unknown): string | undefined {
  if (typeof running !== 'object' || running === null) return 'start() did not resolve to an object';
  const r = running as Partial<RunningModule>;
  const notFunction = (['stop', 'apply', 'listening'] as const).find(
    (key) => (key === 'stop' || r[key] !== undefined) && typeof r[key] !== 'function',
  );
  return notFunction && `the ${notFunction} of the running module (what start() resolved to) is not a function`;
}

/**
 * The extras of module contexts (the reconciler's `contextFor`): the
 * control interface, for the modules whose row says `control` (WEBServer)
 * and none other.
 */
export function controlFor(control: AgentControl): (entry: CatalogueEntry) => { control: AgentControl } | undefined {
  return (entry) => (entry.control === true ? { control } : undefined);
}
