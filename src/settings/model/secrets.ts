/**
 * What counts as a secret in the settings, and how it is hidden. A value is
 * secret when its key is marked `x-secret` in the schema (passwords) or when
 * it was read from outside the file with `${env:NAME}` or `${file:PATH}`
 * (its Origin has `secret: true`). Secrets are shown as `******` by
 * `config-agent settings show` and the API, and are masked in every settings
 * problem and (once the agent runs) in every log line.
 */
import type { JsonSchema } from './schema-set.js';
import type { Origin, ResolvedObject } from './snapshot.js';
import { valueText } from './value-text.js';

// The mask itself lives in the base layer, so that log.ts can use it without importing settings.
export { MIN_MASKED_LENGTH, SECRET_MASK, maskSecrets } from '../../log-escape.js';

/** True when a value with this schema property and origin must not be shown. */
export function isSecretValue(prop: JsonSchema | undefined, origin: Origin | undefined): boolean {
  return prop?.['x-secret'] === true || origin?.secret === true;
}

/**
 * The values read from ${env:} / ${file:} anywhere in the settings (sections,
 * objects, [/paths] variables), longest first so that a secret containing
 * another is masked whole.
 */
export function collectSecrets(
  origins: Readonly<Record<string, Readonly<Record<string, Origin>>>>,
  sections: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
  objects: readonly ReadonlyMap<string, ResolvedObject>[],
  vars: Readonly<Record<string, string>>,
  secretVars: ReadonlySet<string>,
): string[] {
  const found = new Set<string>();
  for (const [path, byKey] of Object.entries(origins)) {
    for (const [key, o] of Object.entries(byKey)) if (o.secret) addValue(found, sections[path]?.[key]);
  }
  for (const map of objects) {
    for (const obj of map.values()) {
      for (const [key, o] of Object.entries(obj.origins)) if (o.secret) addValue(found, obj.values[key]);
    }
  }
  for (const key of secretVars) addValue(found, vars[key]);
  return [...found].sort((a, b) => b.length - a.length);
}

/**
 * The values of keys the schema marks x-secret (passwords, password hashes)
 * in the sections and objects given, longest first: `secretKeys(path)`
 * answers with the test of which keys of the section or object at `path`
 * are secret, or undefined when none can be (most sections: skipped whole).
 */
export function schemaSecrets(
  sections: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
  objects: readonly ReadonlyMap<string, ResolvedObject>[],
  secretKeys: (path: string) => ((key: string) => boolean) | undefined,
): string[] {
  const found = new Set<string>();
  const collect = (test: ((key: string) => boolean) | undefined, values: Readonly<Record<string, unknown>>): void => {
    if (test) for (const [key, value] of Object.entries(values)) if (test(key)) addValue(found, value);
  };
  for (const [path, values] of Object.entries(sections)) collect(secretKeys(path), values);
  for (const map of objects)
    for (const obj of map.values())
      collect(secretKeys(obj.path.endsWith(`/${obj.name}`) ? obj.path : `${obj.path}/${obj.name}`), obj.values);
  return [...found];
}

const secretTests = new WeakMap<JsonSchema, ((key: string) => boolean) | null>();

/**
 * Which keys of a section with this schema are x-secret: a named property
 * marked so, or a key outside `properties` when `additionalProperties` is
 * marked so; undefined when no key can be. Made once per schema.
 */
export function secretKeyTest(schema: JsonSchema | undefined): ((key: string) => boolean) | undefined {
  if (!schema) return undefined;
  let test = secretTests.get(schema);
  if (test === undefined) {
    const props = schema.properties ?? {};
    const named = new Set(
      Object.entries(props)
        .filter(([, s]) => s['x-secret'] === true)
        .map(([k]) => k),
    );
    const others = typeof schema.additionalProperties === 'object' && schema.additionalProperties['x-secret'] === true;
    test = named.size === 0 && !others ? null : (key) => named.has(key) || (others && !(key in props));
    secretTests.set(schema, test);
  }
  return test ?? undefined;
}

function addValue(found: Set<string>, value: unknown): void {
  if (value === undefined || value === null || value === '') return;
  found.add(valueText(value));
}
