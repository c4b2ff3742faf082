import { schemaDefaults } from './schema-set.js';

/**
 * A loaded settings value as text. Once loaded, a value is a string, a
 * number or a boolean (settings/model/coerce.ts turns each INI string into its
 * schema's type), or absent: `fallback` stands for absent (undefined or
 * null). Anything else (no settings value is) is shown as JSON rather than
 * as "[object Object]".
 */
export function valueText(value: unknown, fallback = ''): string {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return jsonText(value) ?? fallback;
}

/** JSON.stringify as it behaves: undefined for undefined, a function or a symbol (lib.d.ts says it always gives a string). */
export function jsonText(value: unknown): string | undefined {
  return JSON.stringify(value);
}

/**
 * The text of `key` in the loaded values of the section at `path`; where
 * the values lack it (a section given without its defaults), the schema's
 * default for it: never a default written a second time in code.
 */
export function keyText(values: Readonly<Record<string, unknown>> | undefined, path: string, key: string): string {
  return valueText(values?.[key], valueText(schemaDefaults(path)[key]));
}
