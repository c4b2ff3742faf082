/**
 * NSClient++'s legacy CheckDisk commands as translations to check_drivesize
 * and check_files: CheckDriveSize and CheckFiles as NSClient++ 0.4/0.5
 * translate them, and checkFile2 of 0.3.x (its path, pattern, syntax,
 * count bounds and size/written filters). README: "Moving from
 * NSClient++", legacy commands.
 */
import { ArgumentError } from '../arguments.js';
import {
  boundKeys,
  boundTokens,
  matchBounds,
  quote,
  readLegacyTokens,
  showAll,
  type Bounds,
} from './legacy-arguments.js';
import { inRange } from '../../in-range.js';

/** NSClient++'s drive types as ours (FilterType=FIXED). */
const DRIVE_TYPES: Readonly<Record<string, string>> = { fixed: 'fixed', remote: 'remote', ramdisk: 'ram', ram: 'ram' };

/**
 * CheckDriveSize → check_drivesize: MaxWarn/MaxCrit on used, MinWarn/MinCrit
 * on free, the Free and Used suffixed forms on free and used; Drive= and
 * bare tokens name drives; CheckAll means every drive, CheckAllOthers every
 * drive but the named ones; FilterType keeps drives of those types.
 */
export function translateCheckDriveSize(tokens: readonly string[]): string[] {
  const known = [
    'help',
    'checkall',
    'checkallothers',
    'drive',
    'filtertype',
    'perf-unit',
    'showall',
    ...boundKeys(),
    ...boundKeys('free'),
    ...boundKeys('used'),
  ];
  const t = readLegacyTokens('CheckDriveSize', tokens, known, true);
  const bounds: Bounds = {};
  matchBounds(t, bounds, 'used', 'free');
  matchBounds(t, bounds, 'used', 'used', 'Used');
  matchBounds(t, bounds, 'free', 'free', 'Free');
  const out = boundTokens(bounds);
  const others = t.values.has('checkallothers');
  if (t.values.has('checkall') || others) out.push('drive=*');
  const unit = t.values.get('perf-unit')?.[0];
  if (unit) out.push(`perf-config=free(unit:${unit})used(unit:${unit})`);
  out.push('detail-syntax=%(drive): Total: %(size) - Used: %(used) (%(used_pct)%) - Free: %(free) (%(free_pct)%)');
  if (showAll(t) !== undefined) out.push('show-all');
  const drives = [...(t.values.get('drive') ?? []), ...t.extra].filter((d) => d !== '');
  const clauses: string[] = [];
  if (others) {
    if (drives.length > 0) clauses.push(`not ( drive in (${drives.map(quote).join(', ')}) )`);
  } else for (const d of drives) out.push(`drive=${d}`);
  const types = t.values.get('filtertype') ?? [];
  if (types.length > 0)
    clauses.push(`type in (${types.map((x) => quote(DRIVE_TYPES[x.toLowerCase()] ?? x.toLowerCase())).join(', ')})`);
  if (clauses.length > 0) out.push(`filter=${clauses.join(' and ')}`);
  return out;
}

/** Old placeholders of the syntax options, as ours (files are `name` here). */
function syntax(text: string): string {
  return text
    .replace(/%filename%/gi, '%(name)')
    .replace(/%size%/gi, '%(size)')
    .replace(/%write%/gi, '%(written)')
    .replace(/%list%/gi, '%(list)')
    .replace(/%count%/gi, '%(count)')
    .replace(/%total%/gi, '%(total)')
    .replace(/([$%][{(])filename([})])/g, '$1name$2');
}

/** Without max-dir-depth NSClient++ descends without limit; here as deep as check_files goes. */
const DEEPEST = '64';

/**
 * CheckFiles → check_files: MaxWarn/MaxCrit/MinWarn/MinCrit bound the number
 * of files, the old warn=/crit= too (`gt:5`); no file found is OK.
 */
export function translateCheckFiles(tokens: readonly string[]): string[] {
  const known = [
    'help',
    'syntax',
    'master-syntax',
    'path',
    'pattern',
    'alias',
    'debug',
    'max-dir-depth',
    'filter',
    'warn',
    'crit',
    ...boundKeys(),
  ];
  const t = readLegacyTokens('CheckFiles', tokens, known, false);
  const bounds: Bounds = {};
  matchBounds(t, bounds, 'count', 'count');
  for (const level of ['warn', 'crit'] as const) {
    const v = t.values.get(level)?.[0];
    if (v === undefined || v === '') continue;
    if (bounds[level] !== undefined)
      throw new ArgumentError(`CheckFiles: ${level}= and a Max/Min bound of the same level are not supported together`);
    bounds[level] = `count ${v.replace(/:/g, ' ')}`;
  }
  const out = boundTokens(bounds);
  const first = (k: string): string | undefined => t.values.get(k)?.[0];
  const filter = first('filter');
  if (filter) out.push(`filter=${filter}`);
  const pattern = first('pattern');
  if (pattern) out.push(`pattern=${pattern}`);
  out.push(`detail-syntax=${syntax(first('syntax') ?? '${filename}')}`);
  out.push(`top-syntax=${syntax(first('master-syntax') ?? '${list}')}`);
  const path = first('path');
  if (path) out.push(`path=${path}`);
  const depth = Number(first('max-dir-depth') ?? '0');
  out.push(`max-depth=${depth > 0 ? String(depth) : DEEPEST}`);
  out.push('empty-state=ok');
  return out;
}

/** checkFile2's filter figures as ours: size as is, the times of 0.3.x as the file's age. */
const FILE2_FIGURES: Readonly<Record<string, string>> = { size: 'size', written: 'age' };

/**
 * checkFile2 (0.3.x) → check_files: path= or file= (repeatable), pattern,
 * syntax, master-syntax, max-dir-depth, count bounds, and filters
 * `filter+size=>1M` (keep files that match), `filter.size=...` (the same)
 * and `filter-size=...` (leave matching files out); written compares the
 * age (`filter+written=>2d`: written more than two days ago).
 */
export function translateCheckFile2(tokens: readonly string[]): string[] {
  const filters: string[] = [];
  const rest: string[] = [];
  for (const raw of tokens) {
    const m = /^\s*filter([+.-])([a-z-]+)=(.*)$/i.exec(raw);
    if (!m) {
      rest.push(raw);
      continue;
    }
    const figure = FILE2_FIGURES[inRange(m, 2).toLowerCase()];
    if (!figure)
      throw new ArgumentError(`checkFile2: filter${m[1]}${m[2]} is not supported here (size and written are)`);
    const value = inRange(m, 3).trim();
    const op = /^(>=|<=|!=|=|>|<)/.exec(value)?.[1] ?? '=';
    const expr = `${figure} ${op} ${value.slice(op === '=' && !value.startsWith('=') ? 0 : op.length).trim()}`;
    filters.push(m[1] === '-' ? `not ( ${expr} )` : `( ${expr} )`);
  }
  const known = [
    'syntax',
    'master-syntax',
    'path',
    'file',
    'pattern',
    'alias',
    'debug',
    'max-dir-depth',
    'filter',
    'truncate',
    'ignore-errors',
    'ignore-perf-data',
    ...boundKeys(),
  ];
  const t = readLegacyTokens('checkFile2', rest, known, false);
  const paths = [...(t.values.get('path') ?? []), ...(t.values.get('file') ?? [])].filter((p) => p !== '');
  if (paths.length === 0) throw new ArgumentError('checkFile2: missing path argument');
  if (filters.length === 0) throw new ArgumentError('checkFile2: missing filter argument');
  const bounds: Bounds = {};
  matchBounds(t, bounds, 'count', 'count');
  const out = boundTokens(bounds);
  out.push(`filter=${filters.join(' and ')}`);
  const first = (k: string): string | undefined => t.values.get(k)?.[0];
  const pattern = first('pattern');
  if (pattern && pattern !== '*.*') out.push(`pattern=${pattern}`);
  out.push(`detail-syntax=${syntax(first('syntax') ?? '%filename%')}`);
  out.push(`top-syntax=${syntax(first('master-syntax') ?? '%list%')}`);
  for (const p of paths) out.push(`path=${p}`);
  const depth = Number(first('max-dir-depth') ?? '-1');
  out.push(`max-depth=${depth > 0 ? String(depth) : DEEPEST}`);
  out.push('empty-state=ok');
  return out;
}
