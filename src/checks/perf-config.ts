/**
 * The documented subset of NSClient++'s `perf-config`: a small stylesheet
 * `selector(key:value; key:value) selector(...)`. A selector is `*`, a value
 * name (`used`, `used_pct`, `load`), an object name (`/`, `physical`,
 * `total`) or a full perf label (`/ used %`). Keys: `unit` (converts sizes
 * between B, KB, MB, GB, TB and times between ms, s, m, h, d; any other
 * metric just takes the label), `ignored` (true drops the metric), `prefix`
 * and `suffix` (added to the label). Rules apply from least to most
 * specific: `*`, value name, object name, full label.
 */
import { ArgumentError } from './arguments.js';
import type { VarKind } from './expression/evaluate.js';
import type { PerfValue } from '../core/result.js';
import { inRange } from '../in-range.js';

export interface PerfStyle {
  unit?: string;
  ignored?: boolean;
  prefix?: string;
  suffix?: string;
}

export interface PerfRule {
  selector: string;
  style: PerfStyle;
}

/** A metric before styling: values in the base unit of its kind (bytes, seconds, percent). */
export interface RawMetric {
  /** Object the metric belongs to (`/`, `physical`, `total 5m`). */
  object: string;
  /** Name of the value it shows (`used`, `used_pct`, `load`). */
  key: string;
  /** Label before styling. */
  alias: string;
  kind: VarKind;
  value: number;
  warning?: number;
  critical?: number;
  /** The threshold alerts when the value is below it (`uptime < 180s`): written as the Nagios range `180:`. */
  warningBelow?: boolean;
  criticalBelow?: boolean;
  minimum?: number;
  maximum?: number;
}

const KEYS = new Set(['unit', 'ignored', 'prefix', 'suffix']);

/** Parse a perf-config text; throws ArgumentError naming the problem. */
export function parsePerfConfig(text: string): PerfRule[] {
  const rules: PerfRule[] = [];
  const re = /\s*([^()]+?)\s*\(([^)]*)\)\s*/y;
  let at = 0;
  while (at < text.length) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m) throw new ArgumentError(`perf-config: expected selector(key:value; ...) at position ${at + 1}`);
    const style: PerfStyle = {};
    for (const part of inRange(m, 2).split(';')) {
      if (part.trim() === '') continue;
      const colon = part.indexOf(':');
      if (colon < 0) throw new ArgumentError(`perf-config: '${part.trim()}' is not key:value`);
      const key = part.slice(0, colon).trim().toLowerCase();
      const value = part.slice(colon + 1).trim();
      if (!KEYS.has(key)) throw new ArgumentError(`perf-config: unknown key '${key}' (known: ${[...KEYS].join(', ')})`);
      if (key === 'ignored') style.ignored = /^(true|1|yes)$/i.test(value);
      else style[key as 'unit' | 'prefix' | 'suffix'] = value;
    }
    rules.push({ selector: inRange(m, 1).trim(), style });
    at = re.lastIndex;
  }
  return rules;
}

const SIZE_FACTORS: Readonly<Record<string, [string, number]>> = {
  b: ['B', 1],
  k: ['KB', 1024],
  kb: ['KB', 1024],
  m: ['MB', 1024 ** 2],
  mb: ['MB', 1024 ** 2],
  g: ['GB', 1024 ** 3],
  gb: ['GB', 1024 ** 3],
  t: ['TB', 1024 ** 4],
  tb: ['TB', 1024 ** 4],
};
const TIME_FACTORS: Readonly<Record<string, [string, number]>> = {
  ms: ['ms', 0.001],
  s: ['s', 1],
  m: ['m', 60],
  h: ['h', 3600],
  d: ['d', 86400],
};

/** Style and convert metrics; ignored ones are dropped. Throws ArgumentError for a unit that does not fit. */
export function applyPerfConfig(metrics: readonly RawMetric[], rules: readonly PerfRule[]): PerfValue[] {
  const out: PerfValue[] = [];
  for (const m of metrics) {
    const style: PerfStyle = {};
    for (const rank of [0, 1, 2, 3]) {
      for (const r of rules) {
        if (matchRank(r.selector, m) !== rank) continue;
        // `*(unit:GB)` styles the metrics the unit fits and leaves percentages alone.
        const { unit, ...rest } = r.style;
        Object.assign(style, rest);
        if (unit !== undefined && (rank > 0 || fits(m.kind, unit))) style.unit = unit;
      }
    }
    if (style.ignored) continue;
    const [unit, factor] = unitFor(m, style.unit);
    const scale = (v: number | undefined): number | undefined => (v === undefined ? undefined : round(v / factor));
    const p: PerfValue = {
      alias: `${style.prefix ?? ''}${m.alias}${style.suffix ?? ''}`,
      value: round(m.value / factor),
    };
    if (unit) p.unit = unit;
    const w = scale(m.warning);
    const c = scale(m.critical);
    const mi = scale(m.minimum);
    const ma = scale(m.maximum);
    if (w !== undefined) p.warning = m.warningBelow ? `${w}:` : w;
    if (c !== undefined) p.critical = m.criticalBelow ? `${c}:` : c;
    if (mi !== undefined) p.minimum = mi;
    if (ma !== undefined) p.maximum = ma;
    out.push(p);
  }
  return out;
}

/** 0 for `*`, 1 for the value name, 2 for the object, 3 for the full label, -1 when it does not match. */
function matchRank(selector: string, m: RawMetric): number {
  if (selector === m.alias) return 3;
  if (selector === m.object) return 2;
  if (selector === m.key) return 1;
  if (selector === '*') return 0;
  return -1;
}

function unitFor(m: RawMetric, wanted: string | undefined): [string, number] {
  if (m.kind === 'size') {
    // The unit follows the size (maximum), which does not move between calls, so a label keeps one unit
    // (graphs break when 'x' is MB one call and GB the next); without a maximum, bytes.
    if (wanted === undefined) return m.maximum !== undefined ? autoSize(m.maximum) : ['B', 1];
    const f = SIZE_FACTORS[wanted.toLowerCase()];
    if (!f)
      throw new ArgumentError(
        `perf-config: unit '${wanted}' does not fit the size ${m.alias} (use B, KB, MB, GB or TB)`,
      );
    return f;
  }
  if (m.kind === 'time') {
    if (wanted === undefined) return ['s', 1];
    const f = TIME_FACTORS[wanted.toLowerCase()];
    if (!f)
      throw new ArgumentError(`perf-config: unit '${wanted}' does not fit the time ${m.alias} (use ms, s, m, h or d)`);
    return f;
  }
  if (m.kind === 'ms') {
    if (wanted === undefined) return ['ms', 1];
    const f = TIME_FACTORS[wanted.toLowerCase()];
    if (!f)
      throw new ArgumentError(`perf-config: unit '${wanted}' does not fit the time ${m.alias} (use ms, s, m, h or d)`);
    return [f[0], f[1] * 1000];
  }
  if (m.kind === 'percent') return [wanted ?? '%', 1];
  return [wanted ?? '', 1];
}

function fits(kind: VarKind, unit: string): boolean {
  if (kind === 'size') return SIZE_FACTORS[unit.toLowerCase()] !== undefined;
  if (kind === 'time' || kind === 'ms') return TIME_FACTORS[unit.toLowerCase()] !== undefined;
  return false;
}

/** The unit NSClient++ users see by default: the largest that keeps the maximum at or above 1. */
function autoSize(reference: number): [string, number] {
  const units: [string, number][] = [
    ['TB', 1024 ** 4],
    ['GB', 1024 ** 3],
    ['MB', 1024 ** 2],
    ['KB', 1024],
  ];
  for (const u of units) if (Math.abs(reference) >= u[1]) return u;
  return ['B', 1];
}

function round(n: number): number {
  return Number(n.toFixed(3));
}
