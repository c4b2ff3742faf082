/**
 * The static module catalogue: each module of the table the settings layer
 * reads (settings/module-table.ts, made from each module's descriptor.ts)
 * with the lazy import of its code (generated/loaders.ts, made with it), so
 * a module's code loads only when the module is enabled. Each module's
 * index.ts exports `createModule(): AgentModule`; its shape is checked on
 * load.
 */
import type { AgentControl } from '../core/control.js';
import type { AgentModule, ModuleFactory } from './module.js';
import { moduleInfo, moduleTable, type ModuleInfo, type ModuleName } from '../settings/module-table.js';
import { LOADERS } from './generated/loaders.js';

/**
 * A row of the module table with its loader. A row's `control` says the
 * module receives the control interface (load, unload, enable and disable
 * modules, edit settings, the whole snapshot, logs) as `ctx.control`; no
 * other module's context has it.
 */
export interface CatalogueEntry extends ModuleInfo {
  readonly load: () => Promise<ModuleFactory>;
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

/** Check that what a module file produced has the module shape; returns the problem or undefined. */
export function shapeProblem(mod: unknown, expectedName: string): string | undefined {
  if (typeof mod !== 'object' || mod === null) return 'createModule() did not return an object';
  const m = mod as Partial<AgentModule>;
  if (m.name !== expectedName) return `name is ${JSON.stringify(m.name)}, expected ${JSON.stringify(expectedName)}`;
  if (typeof m.start !== 'function') return 'start is not a function';
  if (typeof m.stop !== 'function') return 'stop is not a function';
  if (m.apply !== undefined && typeof m.apply !== 'function') return 'apply is not a function';
  return undefined;
}

/**
 * The extras of module contexts (the reconciler's `contextFor`): the
 * control interface, for the modules whose row says `control` (WEBServer)
 * and none other.
 */
export function controlFor(control: AgentControl): (entry: CatalogueEntry) => { control: AgentControl } | undefined {
  return (entry) => (entry.control === true ? { control } : undefined);
}
