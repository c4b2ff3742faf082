/**
 * The argument syntax of NSClient++'s legacy commands (checkCPU, checkMem,
 * CheckDriveSize, ...): `Key=value` and bare `Key` tokens whose keys are
 * case-insensitive (`MaxWarn`, `maxwarn`), and the bound keywords that
 * NSClient++ 0.4/0.5 turns into modern expressions before running the
 * modern check:
 * - `MaxWarn`/`MaxCrit` (with a suffix such as `Free`, `Used`, `Count`)
 *   become `<upper> >= value`, `MinWarn`/`MinCrit` become `<lower> <= value`;
 *   the old `warn=`/`crit=` become `<upper> >= value`.
 * - A value in NSClient++'s own bound style, `gt:80` (two letters and a
 *   colon), keeps its operator: `load gt 80`.
 * - Only the first value of a bound keyword counts (NSClient++ logs that
 *   several are not supported), and a Max and a Min bound of one level are
 *   joined with `or`.
 * The translated tokens then run the modern check, so states, messages and
 * performance data are the modern check's.
 */
import { ArgumentError } from '../arguments.js';

export interface LegacyTokens {
  /** Every value of every known key (lower-cased), in order; a bare key has ''. */
  values: Map<string, string[]>;
  /** Tokens whose key is not a known option (names of services, processes, drives). */
  extra: string[];
}

const IGNORED_FLAGS = new Set(['nsclient', 'perfdata']);

/**
 * Split tokens by the known keys (lower-case). Unknown tokens go to `extra`
 * when the command takes them, else they are an error naming the token.
 */
export function readLegacyTokens(
  command: string,
  tokens: readonly string[],
  known: readonly string[],
  takesExtra: boolean,
): LegacyTokens {
  const values = new Map<string, string[]>();
  const extra: string[] = [];
  const keys = new Set(known);
  for (const raw of tokens) {
    const token = raw.trim();
    if (token === '') continue;
    const eq = token.indexOf('=');
    const key = (eq < 0 ? token : token.slice(0, eq)).trim().toLowerCase();
    // 0.3.x's output switches (nsclient: answer in check_nt's form) have no meaning once the modern check answers.
    if (eq < 0 && IGNORED_FLAGS.has(key)) continue;
    if (keys.has(key)) {
      const list = values.get(key) ?? [];
      list.push(eq < 0 ? '' : token.slice(eq + 1).trim());
      values.set(key, list);
    } else if (takesExtra) extra.push(token);
    else throw new ArgumentError(`${command}: unknown argument '${token}' (known: ${known.join(', ')})`);
  }
  return { values, extra };
}

/** The keys of the bound keywords for a suffix: maxwarn, maxcrit, minwarn, mincrit (+ suffix). */
export function boundKeys(suffix = ''): [string, string, string, string] {
  const s = suffix.toLowerCase();
  return [`maxwarn${s}`, `maxcrit${s}`, `minwarn${s}`, `mincrit${s}`];
}

export const OLD_BOUND_KEYS = ['warn', 'crit'] as const;

/** Warning and critical expressions being built (undefined while unset). */
export interface Bounds {
  warn?: string;
  crit?: string;
}

/**
 * One bound value as an expression. `strip` removes a trailing `%` for a
 * figure that is a percentage itself (CPU load), where `80%` and `80` mean
 * the same.
 */
function boundExpression(name: string, op: string, value: string, strip: boolean): string {
  const v = strip ? value.replace(/%$/, '') : value;
  if (v.length > 3 && v[2] === ':') return `${name} ${v.slice(0, 2)} ${v.slice(3)}`;
  if (v === '') throw new ArgumentError(`a bound needs a value, such as ${name}${op}80`);
  return `${name} ${op} ${v}`;
}

function addBound(bounds: Bounds, level: 'warn' | 'crit', expr: string): void {
  const had = bounds[level];
  bounds[level] = had === undefined ? expr : `( ${had} ) or ( ${expr} )`;
}

/**
 * Apply MaxWarn/MaxCrit (upper >=) and MinWarn/MinCrit (lower <=) with an
 * optional key suffix, in NSClient++'s order: MaxWarn, MaxCrit, MinWarn,
 * MinCrit.
 */
export function matchBounds(
  t: LegacyTokens,
  bounds: Bounds,
  upper: string,
  lower: string,
  suffix = '',
  strip = false,
): void {
  const [maxWarn, maxCrit, minWarn, minCrit] = boundKeys(suffix);
  const first = (k: string): string | undefined => t.values.get(k)?.[0];
  const apply = (k: string, level: 'warn' | 'crit', name: string, op: string): void => {
    const v = first(k);
    if (v !== undefined) addBound(bounds, level, boundExpression(name, op, v, strip));
  };
  apply(maxWarn, 'warn', upper, '>=');
  apply(maxCrit, 'crit', upper, '>=');
  apply(minWarn, 'warn', lower, '<=');
  apply(minCrit, 'crit', lower, '<=');
}

/** The old `warn=`/`crit=` keys: `<name> >= value`. */
export function matchOldBounds(t: LegacyTokens, bounds: Bounds, name: string, strip = false): void {
  for (const level of OLD_BOUND_KEYS) {
    const v = t.values.get(level)?.[0];
    if (v !== undefined) addBound(bounds, level, boundExpression(name, '>=', v, strip));
  }
}

/** The bounds as modern tokens (`warn=...`, `crit=...`). */
export function boundTokens(bounds: Bounds): string[] {
  const out: string[] = [];
  if (bounds.warn !== undefined) out.push(`warn=${bounds.warn}`);
  if (bounds.crit !== undefined) out.push(`crit=${bounds.crit}`);
  return out;
}

/** True when any bound keyword of the suffix was given. */
export function hasBounds(t: LegacyTokens, suffix = ''): boolean {
  return boundKeys(suffix).some((k) => t.values.has(k));
}

/** `ShowAll` as given: undefined when absent, 'short' when bare, else its value (lower-cased). */
export function showAll(t: LegacyTokens): string | undefined {
  const v = t.values.get('showall');
  if (v === undefined) return undefined;
  const last = v.at(-1);
  if (last === undefined) return undefined;
  return last === '' ? 'short' : last.toLowerCase();
}

/** A string for a single-quoted expression literal (quotes doubled). */
export function quote(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}
