/**
 * What one merged section contributes to a load (section-layer.ts absorbs
 * them in order): the checked values of a fixed section, with schema
 * defaults expanded, or an object definition; one-liner objects
 * (`[/settings/web/users] name = …`) become definitions too. An unknown
 * section is a problem with a suggestion.
 */
import type { MergedSection } from './merge-sections.js';
import type { CheckCache } from './check-cache.js';
import type { SchemaSet } from './schema-set.js';
import type { ObjectDefinition } from './objects.js';
import type { ResolvedObject } from './snapshot.js';
import type { Origin } from './snapshot.js';
import { problem, type SettingsProblem } from './problem.js';
import { suggestion } from './did-you-mean.js';
import { expandVariables } from './variables.js';

/** What the layers below the main file hold of an object container (section-layer.ts). */
export interface BelowObjects {
  /** Names the main file adds to the container (none overridden); a main file that overrides an object gives no BelowObjects. */
  added: readonly string[];
  /** The objects of the layer resolved once by `resolve` (remembered per layer), or undefined when that had problems. */
  resolved(
    resolve: (defs: Map<string, ObjectDefinition>) => { map: Map<string, ResolvedObject>; clean: boolean },
  ): Map<string, ResolvedObject> | undefined;
}

export interface SectionState {
  sections: Record<string, Record<string, unknown>>;
  origins: Record<string, Record<string, Origin>>;
  /** Object definitions by container, then name (in the order of the merged sections). */
  defs: Map<string, Map<string, ObjectDefinition>>;
  /** Some value came from ${env:} or ${file:} (may over-approximate: then secrets are looked for and none found). */
  secret: boolean;
  /** For a state copied from a layer: the objects of `container` as the layer has them, and the names the main file added. */
  below?: (container: string) => BelowObjects | undefined;
}

export interface LayerContext {
  set: SchemaSet;
  cache: CheckCache;
  vars: Readonly<Record<string, string>>;
  varsKey: string;
}

/** Schema defaults may use variables (`${certificate-path}/…`); values from the file were expanded already. */
export function expandDefaults(
  values: Record<string, unknown>,
  origins: Record<string, Origin>,
  vars: Readonly<Record<string, string>>,
): Record<string, unknown> {
  for (const [k, v] of Object.entries(values)) {
    if (typeof v === 'string' && origins[k] === undefined && v.includes('${'))
      values[k] = expandVariables(v, vars).value;
  }
  return values;
}

/** Object definitions by the checked section they come from (settings/model/check-cache.ts keeps those per section, file and variables). */
const objectDefs = new WeakMap<object, ObjectDefinition>();
/** Section values with expanded defaults, by the checked section they come from. */
const expandedValues = new WeakMap<object, Record<string, unknown>>();

export function emptyState(): SectionState {
  return { sections: {}, origins: {}, defs: new Map(), secret: false };
}

export function absorbOne(state: SectionState, m: MergedSection, ctx: LayerContext, problems: SettingsProblem[]): void {
  const { set, cache, vars, varsKey } = ctx;
  const { section: s, file: sfile } = m;
  const found = set.find(s.path);
  if (!found) {
    problems.push(
      problem(
        'AGENT_ERR_SECTION_UNKNOWN',
        [s.path],
        { file: sfile, line: s.line, col: s.col, section: s.path },
        suggestion(
          s.path,
          set.sections.map((x) => x.pattern),
        ),
      ),
    );
    return;
  }
  const { section, canonical, objectName } = found;
  if (section.container !== undefined && objectName !== undefined) {
    const checked = cache.check(set, section, canonical, s, sfile, vars, varsKey, false, problems);
    if (checked.secret) state.secret = true;
    // One definition per checked section: a base's objects are the same objects for every host.
    let def = objectDefs.get(checked);
    if (!def)
      objectDefs.set(
        checked,
        (def = {
          name: objectName,
          path: canonical,
          values: checked.values,
          origins: checked.origins,
          at: { file: sfile, line: s.line, col: s.col },
          inFile: true,
        }),
      );
    defsOf(state, section.container).set(objectName, def);
    return;
  }
  const checked = cache.check(set, section, canonical, s, sfile, vars, varsKey, true, problems);
  if (checked.secret) state.secret = true;
  // Checked values are shared by every load of the same reader: expanded once into a new object
  // (frozen with the first snapshot that holds it), never changed afterwards.
  let values = expandedValues.get(checked);
  if (!values) expandedValues.set(checked, (values = expandDefaults({ ...checked.values }, checked.origins, vars)));
  state.sections[canonical] = values;
  state.origins[canonical] = checked.origins;
  const oneLiner = oneLinerKey(set, s.path);
  if (oneLiner) addOneLiners(defsOf(state, canonical), canonical, oneLiner, values, checked.origins, sfile, problems);
}

function defsOf(state: SectionState, container: string): Map<string, ObjectDefinition> {
  let m = state.defs.get(container);
  if (!m) state.defs.set(container, (m = new Map<string, ObjectDefinition>()));
  return m;
}

/** The key a one-liner object's value goes to, for a section of one-liner objects (`[/settings/web/users] name = …`). */
export function oneLinerKey(set: SchemaSet, path: string): string | undefined {
  const found = set.find(path);
  return (found?.section.schema['x-object-container'] as { 'one-liner'?: string } | undefined)?.['one-liner'];
}

function addOneLiners(
  defs: Map<string, ObjectDefinition>,
  container: string,
  key: string,
  values: Record<string, unknown>,
  origins: Record<string, Origin>,
  file: string,
  problems: SettingsProblem[],
): void {
  for (const [name, value] of Object.entries(values)) {
    const o = origins[name];
    // A value without an origin is not written in the file (a default): no object of it.
    if (o === undefined) continue;
    if (defs.has(name)) {
      problems.push(
        problem('AGENT_ERR_VALUE_INVALID', [`object "${name}" is defined both as a one-liner and as a section`], {
          file,
          line: o.line,
          col: o.col,
          section: container,
          key: name,
        }),
      );
      continue;
    }
    defs.set(name, {
      name,
      path: container,
      values: { [key]: value, parent: 'default' },
      origins: { [key]: { ...o, key } },
      at: { file, line: o.line, col: o.col },
      inFile: true,
    });
  }
}
