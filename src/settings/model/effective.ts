/**
 * The effective settings as a flat list of `{path, key, value}` (what
 * NSClient++'s `GET /api/v1/settings` lists): every registered section with
 * defaults applied and variables expanded, then every resolved object
 * (client targets, web users; templates included) under its own section
 * path. Values the schema marks `x-secret` are `******` unless empty; a
 * secret inside another value (a [/paths] folder built from `${env:}` in a
 * certificate path, the script root) is masked where it appears.
 */
import { basename, dirname } from 'node:path';
import { relativeInside } from '../../path-inside.js';
import { loadSchemaSet, type JsonSchema } from './schema-set.js';
import { objectMaps, objectSectionPath, type Origin, type Snapshot } from './snapshot.js';
import { isSecretValue, maskSecrets, SECRET_MASK } from './secrets.js';

export const REDACTED = SECRET_MASK;

export interface EffectiveEntry {
  path: string;
  key: string;
  /** The value as text (booleans `true`/`false`), secrets redacted. */
  value: string;
  /** With `origins`: where the value comes from, `agent.ini:27` (relative to the main file's folder), `object default, agent.ini:40`, or `default`. */
  origin?: string;
}

/** Where a value comes from, as `config-agent settings show` writes it. */
export function originText(o: Origin | undefined, mainFile: string): string {
  return o ? `${o.object ? `object ${o.object}, ` : ''}${originFile(o.file, mainFile)}:${o.line}` : 'default';
}

/** The main file by its name; an included file relative to the main file's folder (absolute when outside it). */
export function originFile(of: string, main: string): string {
  if (of === main) return basename(main);
  return relativeInside(dirname(main), of) ?? of;
}

/** The schema of one key of a section (its property, or the section's additionalProperties). */
export function keySchema(schema: JsonSchema | undefined, key: string): JsonSchema | undefined {
  return (
    schema?.properties?.[key] ??
    (typeof schema?.additionalProperties === 'object' ? schema.additionalProperties : undefined)
  );
}

/** A value as shown to people: `******` for a non-empty secret (x-secret keys, and values from ${env:} / ${file:}: settings/model/secrets.ts). */
export function shownValue(schema: JsonSchema | undefined, key: string, value: unknown, origin?: Origin): unknown {
  return isSecretValue(keySchema(schema, key), origin) && value !== '' && value !== undefined ? REDACTED : value;
}

export function effectiveEntries(s: Snapshot, options: { origins?: boolean } = {}): EffectiveEntry[] {
  const set = loadSchemaSet();
  const out: EffectiveEntry[] = [];
  const add = (
    path: string,
    values: Readonly<Record<string, unknown>>,
    origins: Readonly<Record<string, Origin>> | undefined,
  ): void => {
    const schema = set.find(path)?.section.schema;
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) continue;
      const shown = maskSecrets(String(shownValue(schema, key, value, origins?.[key])), s.secretValues);
      out.push(
        options.origins === true
          ? { path, key, value: shown, origin: originText(origins?.[key], s.file) }
          : { path, key, value: shown },
      );
    }
  };
  for (const [path, values] of Object.entries(s.sections)) add(path, values, s.origins[path]);
  for (const map of objectMaps(s))
    if (map !== s.aliases) for (const o of map.values()) add(objectSectionPath(o), o.values, o.origins);
  return out;
}
