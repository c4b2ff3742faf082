/**
 * The first step of a load: what the merged sections contribute (checked
 * values of fixed sections, object definitions, their problems) before
 * defaults, objects and cross-checks.
 *
 * For a fleet this step is layered: the contribution of the files below the
 * main file (a shared base) is computed once per reader and variables, and
 * each host starts from a copy of it and adds only its own sections (new
 * ones, and those it overrides, which replace the base's contribution and
 * problems at that place). The result is the same as absorbing every merged
 * section in order; the one case where it could differ (a host overriding a
 * section of one-liner objects, whose names the base already defined) is
 * computed in full.
 */
import type { MergedSection } from './merge-sections.js';
import type { CheckCache } from './check-cache.js';
import type { SchemaSet } from './schema-set.js';
import type { ObjectDefinition } from './objects.js';
import type { ResolvedObject } from './snapshot.js';
import type { SettingsProblem } from './problem.js';
import { absorbOne, emptyState, oneLinerKey, type LayerContext, type SectionState } from './absorb-section.js';

/** The objects of one container in the files below the main file, for resolving only what the main file adds. */
export type { BelowObjects } from './absorb-section.js';

/** A remembered contribution of the sections below the main file, with the problems of each position. */
interface Layer {
  varsKey: string;
  state: SectionState;
  /** The keys of state.sections (and state.origins), in order. */
  keys: readonly string[];
  problemsAt: Map<number, SettingsProblem[]>;
  /** Resolved objects of the layer by container (undefined: resolving them had problems). */
  resolved: Map<string, Map<string, ResolvedObject> | undefined>;
  /** Lower-cased object names by container. */
  names: Map<string, Set<string>>;
}

const layers = new WeakMap<CheckCache, WeakMap<readonly MergedSection[], Layer[]>>();

/**
 * What the merged sections `list` contribute; problems are appended to
 * `problems`. `below` is the merge of the files under the main file
 * (mergeLayers): its contribution is reused when known.
 */
export function absorbSections(
  list: readonly MergedSection[],
  below: readonly MergedSection[],
  ctx: LayerContext,
  problems: SettingsProblem[],
): SectionState {
  if (below.length === 0 || !layeredApplies(list, below, ctx.set)) {
    const state = emptyState();
    for (const m of list) absorbOne(state, m, ctx, problems);
    return state;
  }
  const layer = layerOf(below, ctx);
  const state = copyState(layer.state, layer.keys);
  for (const [at, own] of layer.problemsAt) {
    if (list[at] === below[at]) for (const p of own) problems.push({ ...p });
  }
  // Per container: the object names the main file adds, or null when it overrides one of the layer's.
  const added = new Map<string, string[] | null>();
  for (const [i, m] of list.entries()) {
    if (i < below.length && m === below[i]) continue;
    const found = ctx.set.find(m.section.path);
    const container = found?.objectName !== undefined ? found.section.container : undefined;
    if (container !== undefined) {
      const name = found?.objectName as string;
      const names = added.get(container);
      const lower = name.toLowerCase();
      const clash = lower === 'default' || lower === 'sample' || namesOf(layer, container).has(lower);
      if (clash || names === null) added.set(container, null);
      else if (names) names.push(name);
      else added.set(container, [name]);
    }
    absorbOne(state, m, ctx, problems);
  }
  state.below = (container) => {
    const names = added.get(container);
    if (names === null) return undefined;
    return {
      added: names ?? [],
      resolved(resolve) {
        if (!layer.resolved.has(container)) {
          const r = resolve(new Map(layer.state.defs.get(container) ?? []));
          layer.resolved.set(container, r.clean ? r.map : undefined);
        }
        return layer.resolved.get(container);
      },
    };
  };
  return state;
}

// ---------------------------------------------------------------------------
// Helpers

/** The lower-cased object names of a container in the layer (made once per layer and container). */
function namesOf(layer: Layer, container: string): ReadonlySet<string> {
  let names = layer.names.get(container);
  if (!names)
    layer.names.set(
      container,
      (names = new Set([...(layer.state.defs.get(container)?.keys() ?? [])].map((k) => k.toLowerCase()))),
    );
  return names;
}

function copyState(s: SectionState, keys: readonly string[]): SectionState {
  const defs = new Map<string, Map<string, ObjectDefinition>>();
  for (const [container, m] of s.defs) defs.set(container, new Map(m));
  // Copied key by key, not spread: a spread copy turns slow as the load adds the remaining sections.
  const sections: SectionState['sections'] = {};
  const origins: SectionState['origins'] = {};
  // `keys` are those of s.sections and s.origins (layerOf).
  for (const k of keys) {
    sections[k] = s.sections[k] ?? {};
    origins[k] = s.origins[k] ?? {};
  }
  return { sections, origins, defs, secret: s.secret };
}

/** False when the main file overrides a section of one-liner objects that the files below write (computed in full then). */
function layeredApplies(list: readonly MergedSection[], below: readonly MergedSection[], set: SchemaSet): boolean {
  // `list` starts with `below` (mergeLayers): each of its first below.length sections is one of ours or the main file's.
  for (const [i, m] of list.slice(0, below.length).entries()) {
    if (m === below[i]) continue;
    if (oneLinerKey(set, m.section.path) !== undefined) return false;
  }
  return true;
}

function layerOf(below: readonly MergedSection[], ctx: LayerContext): Layer {
  let byList = layers.get(ctx.cache);
  if (!byList) layers.set(ctx.cache, (byList = new WeakMap()));
  const known = byList.get(below) ?? [];
  const hit = known.find((l) => l.varsKey === ctx.varsKey);
  if (hit) return hit;
  const state = emptyState();
  const problemsAt = new Map<number, SettingsProblem[]>();
  below.forEach((m, i) => {
    const own: SettingsProblem[] = [];
    absorbOne(state, m, ctx, own);
    if (own.length > 0) problemsAt.set(i, own);
  });
  const layer: Layer = {
    varsKey: ctx.varsKey,
    state,
    keys: Object.keys(state.sections),
    problemsAt,
    resolved: new Map(),
    names: new Map(),
  };
  if (known.length < 16) {
    known.push(layer);
    byList.set(below, known);
  }
  return layer;
}
