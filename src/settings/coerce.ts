/**
 * INI values arrive as strings; the schema says what each key is. This
 * turns the string into the schema's type before ajv validates the section.
 * Booleans accept 1/0, true/false, yes/no, on/off and enabled/disabled, as
 * NSClient++ settings files use all of them.
 */
import type { JsonSchema } from './schema-set.js';

const TRUE = new Set(['1', 'true', 'yes', 'on', 'enabled', 'enable']);
const FALSE = new Set(['0', 'false', 'no', 'off', 'disabled', 'disable', '']);

export type Coerced = { ok: true; value: unknown } | { ok: false; expected: string };

export function coerceValue(raw: string, schema: JsonSchema | undefined): Coerced {
  switch (schema?.type) {
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (TRUE.has(v)) return { ok: true, value: true };
      if (FALSE.has(v)) return { ok: true, value: false };
      return { ok: false, expected: 'a boolean (1/0, true/false, enabled/disabled)' };
    }
    case 'integer': {
      const v = raw.trim();
      if (/^[-+]?\d+$/.test(v)) return { ok: true, value: Number(v) };
      return { ok: false, expected: 'a whole number' };
    }
    case 'number': {
      const v = raw.trim();
      if (v !== '' && Number.isFinite(Number(v))) return { ok: true, value: Number(v) };
      return { ok: false, expected: 'a number' };
    }
    default:
      return { ok: true, value: raw };
  }
}
