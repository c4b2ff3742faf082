/**
 * What a reconcile would do, module by module, from the applied settings
 * (and what is running) to the desired settings: load, unload, apply in
 * place, restart, or leave unchanged. A changed key marked `x-restart` in
 * its schema forces a restart; other changes go to the module's apply().
 * Pure: no module is touched here.
 */
import { catalogue, type CatalogueEntry } from '../modules/catalogue.js';
import { loadSchemaSet } from './schema-set.js';
import { objectSectionPath, type Snapshot } from './snapshot.js';

export type PlanAction = 'load' | 'unload' | 'apply' | 'restart' | 'unchanged';

export interface PlanStep {
  module: string;
  action: PlanAction;
  /** Human-readable reason, e.g. the changed sections. */
  reason: string;
}

export interface PlanInput {
  applied: Snapshot | undefined;
  desired: Snapshot;
  /** Modules live now. */
  loaded: ReadonlySet<string>;
  /** Run-time overrides from the API (module -> loaded), which win over the file. */
  overrides?: ReadonlyMap<string, boolean>;
}

export function wantsLoaded(name: string, desired: Snapshot, overrides?: ReadonlyMap<string, boolean>): boolean {
  return overrides?.get(name) ?? desired.modules[name] === true;
}

export function planStep(entry: CatalogueEntry, input: PlanInput): PlanStep {
  const name = entry.name;
  const want = wantsLoaded(name, input.desired, input.overrides);
  const live = input.loaded.has(name);
  if (want && !live) return { module: name, action: 'load', reason: input.overrides?.get(name) ? 'loaded at run time' : 'enabled in [/modules]' };
  if (!want && live) return { module: name, action: 'unload', reason: input.overrides?.has(name) ? 'unloaded at run time' : 'disabled in [/modules]' };
  if (!want) return { module: name, action: 'unchanged', reason: 'not loaded' };
  if (!input.applied) return { module: name, action: 'restart', reason: 'no applied settings' };
  const changed = changedKeys(entry, input.applied, input.desired);
  if (changed.length === 0) return { module: name, action: 'unchanged', reason: 'its settings did not change' };
  const restartKeys = changed.filter((c) => c.restart);
  if (restartKeys.length > 0) return { module: name, action: 'restart', reason: `changed: ${restartKeys.map((c) => c.label).join(', ')} (needs a restart)` };
  return { module: name, action: 'apply', reason: `changed: ${changed.map((c) => c.label).join(', ')}` };
}

export function computePlan(input: PlanInput): PlanStep[] {
  return catalogue().map((e) => planStep(e, input));
}

/** The part of a snapshot a module reads, as comparable JSON per section or object. */
export function moduleSlice(entry: CatalogueEntry, s: Snapshot): Map<string, Record<string, unknown>> {
  const prefixes = entry.settings.map((p) => p.toLowerCase());
  const matches = (path: string): boolean => prefixes.some((p) => path.toLowerCase().startsWith(p));
  const out = new Map<string, Record<string, unknown>>();
  for (const [path, values] of Object.entries(s.sections)) if (matches(path)) out.set(path, values as Record<string, unknown>);
  for (const map of [s.targets.agent, s.targets.remote, s.users, s.aliases]) {
    for (const o of map.values()) {
      const path = objectSectionPath(o);
      if (matches(path)) out.set(path, o.values as Record<string, unknown>);
    }
  }
  if (matches('/paths')) out.set('/paths (variables)', s.variables as Record<string, unknown>);
  return out;
}

interface Change {
  label: string;
  restart: boolean;
}

function changedKeys(entry: CatalogueEntry, a: Snapshot, b: Snapshot): Change[] {
  const sa = moduleSlice(entry, a);
  const sb = moduleSlice(entry, b);
  const set = loadSchemaSet();
  const out: Change[] = [];
  for (const path of new Set([...sa.keys(), ...sb.keys()])) {
    const va = sa.get(path) ?? {};
    const vb = sb.get(path) ?? {};
    const props = set.find(path)?.section.schema.properties ?? {};
    for (const key of new Set([...Object.keys(va), ...Object.keys(vb)])) {
      if (JSON.stringify(va[key]) !== JSON.stringify(vb[key])) {
        out.push({ label: `[${path}] ${key}`, restart: (props[key] as { 'x-restart'?: boolean } | undefined)?.['x-restart'] === true });
      }
    }
  }
  return out;
}
