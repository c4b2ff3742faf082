/**
 * The one syntax of a duration in the settings, NSClient++'s: a number of
 * seconds (`300`), or a number with a unit, `ms`, `s`, `m`, `h`, `d` or
 * `w` (`250ms`, `30s`, `5m`, `1.5h`, `1d`). Every key whose schema carries
 * `"x-duration": true` takes it (settings/model/coerce.ts turns it into whole
 * seconds for an integer key); the scheduler's `interval` reads it with the
 * same parser.
 */

/** How a duration is written, for messages. */
export const DURATION_HINT = 'a duration: whole seconds (300) or a number with a unit, 30s, 5m, 1h, 1d';

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** Milliseconds of `text`, or NaN when it is not a duration (a bare number is seconds, as NSClient++ reads it). */
export function parseDurationMs(text: string): number {
  const m = /^\s*([0-9]+(?:\.[0-9]+)?)\s*(ms|s|m|h|d|w)?\s*$/i.exec(text);
  if (!m) return NaN;
  return Math.round(Number(m[1]) * (UNIT_MS[(m[2] ?? 's').toLowerCase()] ?? NaN));
}

/** Whole seconds of `text`, or undefined when it is not a duration of whole seconds. */
export function parseDurationSeconds(text: string): number | undefined {
  const ms = parseDurationMs(text);
  return Number.isFinite(ms) && ms % 1000 === 0 ? ms / 1000 : undefined;
}
