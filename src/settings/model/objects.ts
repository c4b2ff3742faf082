/**
 * The object model of client targets and web users (NSClient++'s
 * parent/template model). Objects come from subsections
 * (`[<container>/name]`) and one-liners (`[<container>] name = value`, the
 * value going to the container's one-liner key, parent `default`). `parent`
 * (default `default`) names the object inherited from: a one-time copy with
 * child keys winning, chains followed; `is template` and `parent` are not
 * inherited. `default` is always a template and the implicit parent of the
 * others; `sample` always exists (a template unless the file defines it).
 * Cycles and unknown parents are errors naming the chain. Schema defaults
 * are applied after inheritance, so a parent's value beats a default.
 */
import type { Origin, ResolvedObject } from './snapshot.js';
import type { SettingsProblem } from './problem.js';
import { problem } from './problem.js';

export interface ObjectDefinition {
  name: string;
  path: string;
  /** Own values (coerced, no defaults). */
  values: Record<string, unknown>;
  origins: Record<string, Origin>;
  /** Position of the section header or one-liner, for problems. */
  at: { file: string; line: number; col: number };
  /** False for the implicit default/sample objects. */
  inFile: boolean;
}

const NOT_INHERITED = new Set(['parent', 'is template']);

/** The own values of the implicit `default` and `sample` objects: one shared empty object, so results can be memoized by identity. */
const IMPLICIT_VALUES: Record<string, unknown> = Object.freeze({});

/**
 * Resolved objects remembered by the identity of their definition's values
 * (settings/model/check-cache.ts keeps those identical for a section a shared base
 * writes), valid while the values of every object in the chain and the
 * defaults are the same. A fleet run resolves a base's 100 targets once,
 * not once per host.
 */
export type ObjectMemo = WeakMap<
  object,
  { container: string; name: string; inFile: boolean; key: string; chain: readonly object[]; resolved: ResolvedObject }
>;

// long function: resolves parents recursively with one memo and one cycle stack
export function resolveObjects(
  container: string,
  defs: Map<string, ObjectDefinition>,
  /** Returns a new object: the schema defaults overlaid with the given values. */
  applyDefaults: (values: Readonly<Record<string, unknown>>) => Record<string, unknown>,
  file: string,
  problems: SettingsProblem[],
  /** Optional memo of earlier results and the key of the defaults they used (settings/model/load.ts passes the variables). */
  memo?: { objects: ObjectMemo; key: string },
  /** Resolve only these objects (their parents are followed as needed); every object when absent. */
  only?: ReadonlySet<string>,
): Map<string, ResolvedObject> {
  for (const implicit of ['default', 'sample']) {
    if (!defs.has(implicit)) {
      defs.set(implicit, {
        name: implicit,
        path: `${container}/${implicit}`,
        values: IMPLICIT_VALUES,
        origins: {},
        at: { file, line: 0, col: 0 },
        inFile: false,
      });
    }
  }
  // Inherited values before defaults, by object name.
  const merged = new Map<
    string,
    { values: Record<string, unknown>; origins: Record<string, Origin>; chain: string[] }
  >();
  const failed = new Set<string>();

  const resolveOne = (
    name: string,
    stack: string[],
  ): { values: Record<string, unknown>; origins: Record<string, Origin>; chain: string[] } | undefined => {
    const done = merged.get(name);
    if (done) return done;
    if (failed.has(name)) return undefined;
    const def = defs.get(name) as ObjectDefinition;
    const parentRaw = def.values.parent;
    let parent =
      typeof parentRaw === 'string' && parentRaw !== '' ? parentRaw : name === 'default' ? undefined : 'default';
    if (parent === name && name === 'default') parent = undefined;
    const where = def.origins.parent ?? { ...def.at };
    const at = {
      file: where.file,
      line: where.line,
      col: where.col,
      section: def.path,
      key: def.origins.parent ? 'parent' : undefined,
    };
    let base: { values: Record<string, unknown>; origins: Record<string, Origin>; chain: string[] } = {
      values: {},
      origins: {},
      chain: [],
    };
    if (parent !== undefined) {
      const parentKey = findName(defs, parent);
      if (parentKey === undefined) {
        problems.push(
          problem('AGENT_ERR_OBJECT_PARENT_UNKNOWN', [name, parent, [...stack, name, parent].join(' -> ')], at),
        );
        failed.add(name);
        return undefined;
      }
      if (stack.includes(parentKey) || parentKey === name) {
        problems.push(problem('AGENT_ERR_OBJECT_CYCLE', [name, [...stack, name, parentKey].join(' -> ')], at));
        failed.add(name);
        return undefined;
      }
      const p = resolveOne(parentKey, [...stack, name]);
      if (!p) {
        failed.add(name);
        return undefined;
      }
      base = p;
    }
    const values: Record<string, unknown> = {};
    const origins: Record<string, Origin> = {};
    for (const [k, v] of Object.entries(base.values)) if (!NOT_INHERITED.has(k)) values[k] = v;
    for (const [k, o] of Object.entries(base.origins)) if (!NOT_INHERITED.has(k)) origins[k] = o;
    for (const [k, v] of Object.entries(def.values)) {
      values[k] = v;
      const o = def.origins[k];
      if (o) {
        // Origins are fresh per definition, so they are tagged in place.
        o.object = name;
        origins[k] = o;
      }
    }
    const result = { values, origins, chain: [name, ...base.chain] };
    merged.set(name, result);
    return result;
  };

  /** The values objects of the chain from `name` up, or undefined for a broken chain (reported by resolveOne). */
  const chainValues = (name: string): object[] | undefined => {
    const seen: object[] = [];
    let current = name;
    for (;;) {
      const def = defs.get(current) as ObjectDefinition;
      if (seen.includes(def.values) || seen.length > 100) return undefined;
      seen.push(def.values);
      const parentRaw = def.values.parent;
      const parent: string | undefined =
        typeof parentRaw === 'string' && parentRaw !== '' ? parentRaw : current === 'default' ? undefined : 'default';
      if (parent === undefined || (parent === current && current === 'default')) break;
      const key = findName(defs, parent);
      if (key === undefined || key === current) return undefined;
      current = key;
    }
    return seen;
  };

  const out = new Map<string, ResolvedObject>();
  for (const [name, def] of defs) {
    if (only && !only.has(name)) continue;
    const chainIds = memo ? chainValues(name) : undefined;
    if (memo && chainIds) {
      const hit = memo.objects.get(def.values);
      if (
        hit &&
        hit.container === container &&
        hit.name === name &&
        hit.inFile === def.inFile &&
        hit.key === memo.key &&
        sameList(hit.chain, chainIds)
      ) {
        out.set(name, hit.resolved);
        continue;
      }
    }
    const r = resolveOne(name, []);
    if (!r) continue;
    const values = applyDefaults(r.values);
    const ownTemplate = def.values['is template'] === true;
    const isTemplate = name === 'default' || (name === 'sample' && !def.inFile) || ownTemplate;
    values['is template'] = isTemplate;
    const resolved: ResolvedObject = { name, path: def.path, isTemplate, values, origins: r.origins, chain: r.chain };
    out.set(name, resolved);
    if (memo && chainIds)
      memo.objects.set(def.values, { container, name, inFile: def.inFile, key: memo.key, chain: chainIds, resolved });
  }
  return out;
}

/** Object names match case-insensitively, preferring the exact spelling. */
function findName(defs: Map<string, ObjectDefinition>, name: string): string | undefined {
  if (defs.has(name)) return name;
  const lower = name.toLowerCase();
  for (const k of defs.keys()) if (k.toLowerCase() === lower) return k;
  return undefined;
}

function sameList(a: readonly object[], b: readonly object[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
