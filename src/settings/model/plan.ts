/**
 * What a reconcile would do, module by module, from the applied settings
 * (and what is running) to the desired settings: load, unload, apply in
 * place, restart, or leave unchanged. A changed key marked `x-restart` in
 * its schema forces a restart; other changes go to the module's apply().
 * Pure: no module is touched here.
 */
import { moduleTable, type ModuleInfo } from './module-table.js';
import { loadSchemaSet, type SchemaSet } from './schema-set.js';
import { dirname, relative } from 'node:path';
import { relativeInside } from '../../path-inside.js';
import { objectSectionPath, type Origin, type Snapshot } from './snapshot.js';
import {
  fallbackOf,
  fallbackTargets,
  moduleView,
  sectionWithFallbacks,
  viewOrigin,
  type SectionPath,
} from './module-view.js';
import { jsonText } from './value-text.js';

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
  /** The schemas whose `x-restart` marks decide restart over apply (default: schema/). */
  schemas?: SchemaSet;
}

export function wantsLoaded(name: string, desired: Snapshot, overrides?: ReadonlyMap<string, boolean>): boolean {
  return overrides?.get(name) ?? desired.modules[name] === true;
}

export function planStep(entry: Pick<ModuleInfo, 'name' | 'settings'>, input: PlanInput): PlanStep {
  const name = entry.name;
  const want = wantsLoaded(name, input.desired, input.overrides);
  const live = input.loaded.has(name);
  if (want && !live)
    return {
      module: name,
      action: 'load',
      reason: input.overrides?.get(name) ? 'loaded at run time' : 'enabled in [/modules]',
    };
  if (!want && live)
    return {
      module: name,
      action: 'unload',
      reason: input.overrides?.has(name) ? 'unloaded at run time' : 'disabled in [/modules]',
    };
  if (!want) return { module: name, action: 'unchanged', reason: 'not loaded' };
  if (!input.applied) return { module: name, action: 'restart', reason: 'no applied settings' };
  const changed = changedKeys(entry, input.applied, input.desired, input.schemas);
  if (changed.length === 0) return { module: name, action: 'unchanged', reason: 'its settings did not change' };
  const restartKeys = changed.filter((c) => c.restart);
  if (restartKeys.length > 0)
    return { module: name, action: 'restart', reason: `changed: ${labels(restartKeys)} (needs a restart)` };
  return { module: name, action: 'apply', reason: `changed: ${labels(changed)}` };
}

/** True when the part of the settings `entry` reads (its view, moduleSlice) differs between `a` and `b`. */
export function moduleSettingsChanged(entry: Pick<ModuleInfo, 'settings'>, a: Snapshot, b: Snapshot): boolean {
  return changedKeys(entry, a, b).length > 0;
}

export function computePlan(input: PlanInput): PlanStep[] {
  return moduleTable().map((e) => planStep(e, input));
}

/**
 * The part of a snapshot a module reads, as comparable values per section
 * or object: its settings view (settings/model/module-view.ts: own sections with
 * x-fallback keys filled, own objects), plus the path variables for a module
 * that names /paths.
 */
export function moduleSlice(
  entry: Pick<ModuleInfo, 'settings'>,
  s: Snapshot,
): Map<string, Readonly<Record<string, unknown>>> {
  const view = moduleView(entry.settings, s);
  const out = new Map<string, Readonly<Record<string, unknown>>>();
  for (const [path, values] of Object.entries(view.sections)) out.set(path, values);
  for (const map of [view.targets, view.users, view.aliases, view.schedules])
    for (const o of map.values()) out.set(objectSectionPath(o), o.values);
  if (entry.settings.includes('/paths')) out.set(PATHS_VARIABLES, s.variables);
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
  const owned = new Set<string>(moduleTable().flatMap((e) => e.settings));
  // A section that owned sections fall back to (x-fallback) reaches its modules through their views.
  for (const path of [...owned]) for (const to of fallbackTargets(path)) owned.add(to);
  const own = {
    settings: (Object.keys(desired.sections) as SectionPath[]).filter(
      (path) => !owned.has(path) && path !== '/modules',
    ),
  };
  const changes = changedKeys(own, applied, desired);
  const va = JSON.stringify(applied.variables);
  const vb = JSON.stringify(desired.variables);
  if (va !== vb) {
    for (const key of Object.keys(desired.variables)) {
      if (applied.variables[key] !== desired.variables[key])
        changes.push({ label: `[/paths] ${key}${at(desired.origins['/paths']?.[key], desired.file)}`, restart: false });
    }
  }
  // Included files, by their path relative to their main file (OLD and NEW are usually two checkouts of one tree).
  const included = (s: Snapshot): string[] =>
    s.sources.filter((f) => f.file !== s.file).map((f) => relative(dirname(s.file), f.file));
  const fa = included(applied);
  const fb = included(desired);
  for (const f of fb) if (!fa.includes(f)) changes.push({ label: `includes ${f}`, restart: false });
  for (const f of fa) if (!fb.includes(f)) changes.push({ label: `no longer includes ${f}`, restart: false });
  if (changes.length === 0)
    return { module: AGENT_STEP, action: 'unchanged', reason: 'log, paths and includes did not change' };
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

function changedKeys(
  entry: Pick<ModuleInfo, 'settings'>,
  a: Snapshot,
  b: Snapshot,
  schemas: SchemaSet = loadSchemaSet(),
): Change[] {
  const sa = moduleSlice(entry, a);
  const sb = moduleSlice(entry, b);
  const originsB = originIndex(entry, b);
  const originsA = originIndex(entry, a);
  const raw: (Change & { path: string; key: string; origin: Origin | undefined; before: string; after: string })[] = [];
  for (const path of new Set([...sa.keys(), ...sb.keys()])) {
    const va = sa.get(path) ?? {};
    const vb = sb.get(path) ?? {};
    const props = schemas.find(path)?.section.schema.properties ?? {};
    for (const key of new Set([...Object.keys(va), ...Object.keys(vb)])) {
      if (JSON.stringify(va[key]) !== JSON.stringify(vb[key])) {
        const o = originsB.get(path)?.[key] ?? originsA.get(path)?.[key];
        const before = jsonText(va[key]) ?? '';
        const after = jsonText(vb[key]) ?? '';
        // A value that falls back (x-fallback) is named where it is written: `[/settings/default] password`.
        const shownPath = o !== undefined && fallbackOf(path, key) === o.section ? o.section : path;
        raw.push({
          path,
          key,
          origin: o,
          before,
          after,
          label: `[${shownPath}] ${key}${at(o, b.file)}`,
          restart: (props[key] as { 'x-restart'?: boolean } | undefined)?.['x-restart'] === true,
        });
      }
    }
  }
  // Name only what was edited: a value an object inherits from an edited
  // parent is the parent's change, and a value that changed only because a
  // [/paths] variable in it did is that variable's change. (A
  // [/settings/default] key reaches a module only through a section that
  // falls back to it, in its view.)
  const listed = new Set(raw.map((c) => `${c.path.toLowerCase()}\0${c.key}`));
  const variables = Object.keys(b.variables).filter((k) => a.variables[k] && a.variables[k] !== b.variables[k]);
  const viaVariable = (c: (typeof raw)[number]): string | undefined =>
    variables.find(
      (k) =>
        c.before
          .split(JSON.stringify(a.variables[k]).slice(1, -1))
          .join(JSON.stringify(b.variables[k]).slice(1, -1)) === c.after,
    );
  return raw.map((c) => {
    const from = c.origin?.object;
    if (
      from !== undefined &&
      !c.path.endsWith(`/${from}`) &&
      listed.has(`${c.path.slice(0, c.path.lastIndexOf('/')).toLowerCase()}/${from.toLowerCase()}\0${c.key}`)
    )
      return { label: c.label, restart: c.restart, shown: false };
    if (c.path === PATHS_VARIABLES)
      return { label: c.label, restart: c.restart, shown: !listed.has(`/paths\0${c.key}`) };
    const variable = c.path === '/paths' ? undefined : viaVariable(c);
    if (variable === undefined) return { label: c.label, restart: c.restart };
    if (listed.has(`/paths\0${variable}`)) return { label: c.label, restart: c.restart, shown: false };
    return { label: `${c.label} (via \${${variable}})`, restart: c.restart };
  });
}

/** Where a value is written, for plan labels: ` (file:line)`, the file relative to the main file's folder. */
function at(o: Origin | undefined, main: string): string {
  if (!o) return '';
  return ` (${relativeInside(dirname(main), o.file) ?? o.file}:${o.line})`;
}

/** Origins of the values in a module's slice, by path (a fallback value's origin is where the fallback section sets it). */
function originIndex(entry: Pick<ModuleInfo, 'settings'>, s: Snapshot): Map<string, Readonly<Record<string, Origin>>> {
  const out = new Map<string, Readonly<Record<string, Origin>>>();
  for (const path of entry.settings) {
    const origins: Record<string, Origin> = {};
    for (const key of Object.keys(sectionWithFallbacks(s, path))) {
      const o = viewOrigin(s, path, key);
      if (o !== undefined) origins[key] = o;
    }
    out.set(path, origins);
  }
  const view = moduleView(entry.settings, s);
  for (const map of [view.targets, view.users, view.aliases, view.schedules])
    for (const obj of map.values()) out.set(objectSectionPath(obj), obj.origins);
  return out;
}
