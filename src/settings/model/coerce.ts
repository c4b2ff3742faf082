/**
 * INI values arrive as strings; the schema says what each key is. This
 * turns the string into the schema's type before ajv validates the section.
 * Booleans accept 1/0, true/false, yes/no, on/off and enabled/disabled, as
 * NSClient++ settings files use all of them. A key marked `x-duration`
 * takes NSClient++'s durations (300, 30s, 5m, 1h, 1d: formats/duration.ts)
 * as whole seconds.
 */
import { parseBoolean } from '../../formats/boolean.js';
import { DURATION_HINT, parseDurationSeconds } from '../../formats/duration.js';
import type { JsonSchema } from './schema-set.js';

export type Coerced = { ok: true; value: unknown } | { ok: false; expected: string };

export function coerceValue(raw: string, schema: JsonSchema | undefined): Coerced {
  if (schema?.['x-duration'] === true && schema.type === 'integer') {
    // One duration syntax for every key that is one (formats/duration.ts): 300, 30s, 5m, 1h, 1d. A string one
    // (the scheduler's interval, which takes 250ms) keeps its text, checked by the same syntax as a pattern.
    const seconds = parseDurationSeconds(raw);
    if (seconds !== undefined) return { ok: true, value: seconds };
    return { ok: false, expected: DURATION_HINT };
  }
  switch (schema?.type) {
    case 'boolean': {
      // An empty value is false (`key =`).
      const v = raw.trim() === '' ? false : parseBoolean(raw);
      if (v !== undefined) return { ok: true, value: v };
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
