/**
 * What a reconcile would do, module by module, from the applied settings
 * (and what is running) to the desired settings: load, unload, apply in
 * place, restart, or leave unchanged. A changed key marked `x-restart` in
 * its schema forces a restart; other changes go to the module's apply().
 * Pure: no module is touched here.
 */
import { catalogue, type CatalogueEntry } from '../modules/catalogue.js';
import { loadSchemaSet } from './schema-set.js';
import { dirname, relative } from 'node:path';
import { objectSectionPath, type Origin, type Snapshot } from './snapshot.js';

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
  if (restartKeys.length > 0) return { module: name, action: 'restart', reason: `changed: ${labels(restartKeys)} (needs a restart)` };
  return { module: name, action: 'apply', reason: `changed: ${labels(changed)}` };
}

export function computePlan(input: PlanInput): PlanStep[] {
  return catalogue().map((e) => planStep(e, input));
}

/** The part of a snapshot a module reads, as comparable JSON per section or object. */
export function moduleSlice(entry: Pick<CatalogueEntry, 'settings'>, s: Snapshot): Map<string, Record<string, unknown>> {
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
  if (matches('/paths')) out.set(PATHS_VARIABLES, s.variables as Record<string, unknown>);
  return out;
}

/** The slice entry of the path variables after [/paths] overrides. */
const PATHS_VARIABLES = '/paths (variables)';

/** The module name of the step for settings the agent itself reads. */
export const AGENT_STEP = 'agent';

/**
 * The step for settings no module owns, which the agent applies itself on
 * every reload: `[/settings/log]` (level, buffer size), the `[/paths]`
 * variables, and the files of the tree (`[/includes]`). `apply` when any of
 * them changed, else `unchanged`.
 */
export function agentStep(applied: Snapshot, desired: Snapshot): PlanStep {
  const owned = catalogue().flatMap((e) => e.settings.map((p) => p.toLowerCase()));
  const own = { settings: Object.keys(desired.sections).filter((path) => !owned.some((p) => path.toLowerCase().startsWith(p)) && path !== '/modules') };
  const changes = changedKeys(own, applied, desired);
  const va = JSON.stringify(applied.variables);
  const vb = JSON.stringify(desired.variables);
  if (va !== vb) {
    for (const key of Object.keys(desired.variables)) {
      if (applied.variables[key] !== desired.variables[key]) changes.push({ label: `[/paths] ${key}${at(desired.origins['/paths']?.[key], desired.file)}`, restart: false });
    }
  }
  // Included files, by their path relative to their main file (OLD and NEW are usually two checkouts of one tree).
  const included = (s: Snapshot): string[] => s.sources.filter((f) => f.file !== s.file).map((f) => relative(dirname(s.file), f.file));
  const fa = included(applied);
  const fb = included(desired);
  for (const f of fb) if (!fa.includes(f)) changes.push({ label: `includes ${f}`, restart: false });
  for (const f of fa) if (!fb.includes(f)) changes.push({ label: `no longer includes ${f}`, restart: false });
  if (changes.length === 0) return { module: AGENT_STEP, action: 'unchanged', reason: 'log, paths and includes did not change' };
  return { module: AGENT_STEP, action: 'apply', reason: `changed: ${labels(changes)}` };
}

interface Change {
  label: string;
  restart: boolean;
  /** False for a change that follows from another one listed (an inherited value, a variable's expansion): it counts, unnamed. */
  shown?: boolean;
}

/** The labels of the changes to name; all of them when every one follows from a change outside the list. */
function labels(changes: readonly Change[]): string {
  const shown = changes.filter((c) => c.shown !== false);
  return (shown.length > 0 ? shown : changes).map((c) => c.label).join(', ');
}

function changedKeys(entry: Pick<CatalogueEntry, 'settings'>, a: Snapshot, b: Snapshot): Change[] {
  const sa = moduleSlice(entry, a);
  const sb = moduleSlice(entry, b);
  const originsB = originIndex(entry, b);
  const originsA = originIndex(entry, a);
  const set = loadSchemaSet();
  const raw: (Change & { path: string; key: string; origin: Origin | undefined; before: string; after: string })[] = [];
  for (const path of new Set([...sa.keys(), ...sb.keys()])) {
    const va = sa.get(path) ?? {};
    const vb = sb.get(path) ?? {};
    const props = set.find(path)?.section.schema.properties ?? {};
    for (const key of new Set([...Object.keys(va), ...Object.keys(vb)])) {
      if (JSON.stringify(va[key]) !== JSON.stringify(vb[key])) {
        const o = originsB.get(path)?.[key] ?? originsA.get(path)?.[key];
        const before = JSON.stringify(va[key]) ?? '';
        const after = JSON.stringify(vb[key]) ?? '';
        raw.push({ path, key, origin: o, before, after, label: `[${path}] ${key}${at(o, b.file)}`, restart: (props[key] as { 'x-restart'?: boolean } | undefined)?.['x-restart'] === true });
      }
    }
  }
  // Name only what was edited: a value an object inherits from an edited
  // parent is the parent's change, a value that changed only because a
  // [/paths] variable in it did is that variable's change, and a
  // [/settings/default] key counts only for a section that falls back to it
  // (x-fallback) without setting it itself.
  const listed = new Set(raw.map((c) => `${c.path.toLowerCase()}\0${c.key}`));
  const variables = Object.keys(b.variables).filter((k) => a.variables[k] && a.variables[k] !== b.variables[k]);
  const viaVariable = (c: (typeof raw)[number]): string | undefined =>
    variables.find((k) => c.before.split(JSON.stringify(a.variables[k]).slice(1, -1)).join(JSON.stringify(b.variables[k]).slice(1, -1)) === c.after);
  return raw
    .filter((c) => !FALLBACK_SECTIONS.has(c.path) || fallsBackTo(c.path, c.key, sa, sb, set))
    .map((c) => {
      const from = c.origin?.object;
      if (from !== undefined && !c.path.endsWith(`/${from}`) && listed.has(`${c.path.slice(0, c.path.lastIndexOf('/')).toLowerCase()}/${from.toLowerCase()}\0${c.key}`)) return { label: c.label, restart: c.restart, shown: false };
      if (c.path === PATHS_VARIABLES) return { label: c.label, restart: c.restart, shown: !listed.has(`/paths\0${c.key}`) };
      const variable = c.path === '/paths' ? undefined : viaVariable(c);
      if (variable === undefined) return { label: c.label, restart: c.restart };
      if (listed.has(`/paths\0${variable}`)) return { label: c.label, restart: c.restart, shown: false };
      return { label: `${c.label} (via \${${variable}})`, restart: c.restart };
    });
}

/** Sections that other sections fall back to, key by key (`x-fallback` in their schemas). */
const FALLBACK_SECTIONS = new Set(['/settings/default']);

/** Whether a section of the slice reads `key` from `fallback` because it does not set it, before or after. */
function fallsBackTo(fallback: string, key: string, sa: Map<string, Record<string, unknown>>, sb: Map<string, Record<string, unknown>>, set: ReturnType<typeof loadSchemaSet>): boolean {
  for (const path of new Set([...sa.keys(), ...sb.keys()])) {
    const prop = set.find(path)?.section.schema.properties?.[key] as { 'x-fallback'?: string } | undefined;
    if (prop?.['x-fallback'] !== fallback) continue;
    if (sa.get(path)?.[key] === undefined || sb.get(path)?.[key] === undefined) return true;
  }
  return false;
}

/** Where a value is written, for plan labels: ` (file:line)`, the file relative to the main file's folder. */
function at(o: Origin | undefined, main: string): string {
  if (!o) return '';
  const rel = relative(dirname(main), o.file);
  return ` (${rel.startsWith('..') ? o.file : rel}:${o.line})`;
}

/** Origins of the sections and objects in a module's slice, by path. */
function originIndex(entry: Pick<CatalogueEntry, 'settings'>, s: Snapshot): Map<string, Readonly<Record<string, Origin>>> {
  const prefixes = entry.settings.map((p) => p.toLowerCase());
  const matches = (path: string): boolean => prefixes.some((p) => path.toLowerCase().startsWith(p));
  const out = new Map<string, Readonly<Record<string, Origin>>>();
  for (const [path, o] of Object.entries(s.origins)) if (matches(path)) out.set(path, o);
  for (const map of [s.targets.agent, s.targets.remote, s.users]) {
    for (const obj of map.values()) {
      const path = objectSectionPath(obj);
      if (matches(path)) out.set(path, obj.origins);
    }
  }
  return out;
}
