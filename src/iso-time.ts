/**
 * A time as `Date.prototype.toISOString` writes it (`2026-11-29T10:48:44.563Z`), computed from
 * the milliseconds since the epoch in UTC arithmetic. The first toISOString of a process asks
 * V8's date cache for the local time offset, which makes ICU detect the host's time zone
 * (tzset, /etc/localtime): about 0.2 ms at every start of the agent, whose log lines and status
 * only ever show UTC (issue 41). Years 0000-9999 are computed here; any other time (and NaN,
 * which throws a RangeError) goes to Date, so the text is always toISOString's.
 */

const DAY_MS = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z. */
const FIRST = -62_167_219_200_000;
const LAST = 253_402_300_799_999;

/** `ms` (milliseconds since the epoch, as Date.now() gives them) as toISOString writes it. */
export function isoTime(ms: number): string {
  // Date keeps whole milliseconds, truncated toward zero (TimeClip).
  const t = Math.trunc(ms);
  if (!(t >= FIRST && t <= LAST)) return new Date(ms).toISOString();
  const days = Math.floor(t / DAY_MS);
  const inDay = t - days * DAY_MS;
  const [year, month, day] = civilDate(days);
  return (
    `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(Math.floor(inDay / 3_600_000), 2)}:` +
    `${pad(Math.floor(inDay / 60_000) % 60, 2)}:${pad(Math.floor(inDay / 1000) % 60, 2)}.${pad(inDay % 1000, 3)}Z`
  );
}

/**
 * Year, month (1-12) and day (1-31) of the proleptic Gregorian calendar for a count of days
 * since 1970-01-01 (Howard Hinnant's days_from_civil inverse: 400-year eras of 146097 days,
 * the year starting on March 1 so that the leap day ends it).
 */
function civilDate(days: number): [number, number, number] {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  return [yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}
