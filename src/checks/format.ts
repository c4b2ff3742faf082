/**
 * Text of check results: `%(name)` and `${name}` placeholders, and the
 * human form of values by kind (sizes in B/KB/MB/GB/TB, times as 1d 2h 3m,
 * dates in UTC, percentages rounded).
 */
import type { Scalar, VarKind } from './expression/evaluate.js';
import { inRange } from '../in-range.js';
import { isoTime } from '../iso-time.js';

const PLACEHOLDER = /%\(([A-Za-z0-9_.]+)\)|\$\{([A-Za-z0-9_.]+)\}/g;

/** The placeholder names a template uses, in order of appearance. */
export function templateNames(template: string): string[] {
  // One of the two alternatives took part.
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1] ?? inRange(m, 2));
}

/** Fill placeholders; names that `lookup` does not know are left as written. */
export function renderTemplate(template: string, lookup: (name: string) => string | undefined): string {
  return template.replace(
    PLACEHOLDER,
    (whole, a: string | undefined, b: string | undefined) => lookup((a ?? b) as string) ?? whole,
  );
}

const SIZE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'] as const;

/** A byte count in the largest unit that keeps it at or above 1 (1024-based), two decimals at most. */
export function formatSize(bytes: number): string {
  let v = bytes;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < SIZE_UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  return `${trimNumber(v, 2)}${SIZE_UNITS[u]}`;
}

/** Seconds as `2d 3h 4m`, `5m 6s` or `7s`. */
export function formatDuration(seconds: number): string {
  const neg = seconds < 0 ? '-' : '';
  let s = Math.round(Math.abs(seconds));
  const parts: string[] = [];
  for (const [unit, size] of [
    ['w', 604800],
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
  ] as const) {
    if (s >= size) {
      parts.push(`${Math.floor(s / size)}${unit}`);
      s %= size;
    }
  }
  if (s > 0 || parts.length === 0) parts.push(`${s}s`);
  return neg + parts.slice(0, 3).join(' ');
}

/** Seconds since the epoch as `YYYY-MM-DD HH:MM:SS` in UTC. */
export function formatDate(epochSeconds: number): string {
  if (!Number.isFinite(epochSeconds) || epochSeconds <= 0) return 'never';
  return isoTime(epochSeconds * 1000)
    .replace('T', ' ')
    .replace(/\.\d+Z$/, '');
}

/** The human form of a value of the given kind. */
export function formatValue(value: Scalar | undefined, kind: VarKind): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  switch (kind) {
    case 'size':
      return formatSize(value);
    case 'time':
      return formatDuration(value);
    case 'date':
      return formatDate(value);
    case 'percent':
      return String(Math.round(value));
    default:
      return trimNumber(value, 2);
  }
}

/** A number with at most `decimals` decimals and no trailing zeros. */
export function trimNumber(n: number, decimals: number): string {
  return String(Number(n.toFixed(decimals)));
}
