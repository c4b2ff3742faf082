/**
 * Performance data as horizontal bars: one row per alias with the value as
 * text (value, unit, warning, critical, min, max) and a bar scaled to the
 * maximum when given, to 100 for a percentage, else to the largest of
 * value, warning and critical. A value with neither a maximum nor a
 * threshold has no scale: it gets no bar (a load of 2.98 and one of 1.17
 * must not look alike), only its text.
 * Warning and critical thresholds are drawn as marks on the bar. The text
 * carries all the data; the bar is decoration (aria-hidden).
 */
import { h } from '../dom.js';

/** Render `perf` ({alias: {value, unit?, warning?, critical?, minimum?, maximum?}}); null when empty. */
export function perfBars(perf) {
  const entries = Object.entries(perf ?? {}).filter(([, p]) => p && typeof p === 'object');
  if (entries.length === 0) return null;
  return h(
    'ul',
    { class: 'perf', 'aria-label': 'Performance data' },
    entries.map(([alias, p]) => row(alias, p)),
  );
}

function row(alias, p) {
  const value = num(p.value);
  const warn = num(p.warning);
  const crit = num(p.critical);
  const min = num(p.minimum) ?? 0;
  const max = scaleMax(p, value, warn, crit);
  if (max === undefined) {
    return h(
      'li',
      { class: 'perf-row perf-unscaled' },
      h('span', { class: 'perf-alias', text: alias }),
      h('span', { class: 'perf-text', text: describe(p) }),
    );
  }
  // A maximum at or below the minimum (swap of size 0: max 0) leaves no range to draw: an empty bar, no ticks.
  const given = num(p.maximum);
  const noRange = given !== undefined && given <= min;
  const pos = (v) => `${Math.max(0, Math.min(100, ((v - min) / (max - min)) * 100))}%`;
  const fill = h('span', { class: `perf-fill perf-${level(value, warn, crit)}` });
  fill.style.width = value === undefined || noRange ? '0%' : pos(value);
  const marks = [];
  for (const [v, kind] of [
    [warn, 'warning'],
    [crit, 'critical'],
  ]) {
    if (v === undefined || noRange) continue;
    const mark = h('span', { class: `perf-mark perf-mark-${kind}` });
    mark.style.left = pos(v);
    marks.push(mark);
  }
  return h(
    'li',
    { class: 'perf-row' },
    h('span', { class: 'perf-alias', text: alias }),
    h('span', { class: 'perf-track', 'aria-hidden': 'true' }, fill, marks),
    h('span', { class: 'perf-text', text: describe(p) }),
  );
}

function describe(p) {
  const unit = p.unit ?? '';
  const parts = [];
  if (p.warning !== undefined) parts.push(`warning ${p.warning}${unit}`);
  if (p.critical !== undefined) parts.push(`critical ${p.critical}${unit}`);
  if (p.minimum !== undefined) parts.push(`min ${p.minimum}${unit}`);
  if (p.maximum !== undefined) parts.push(`max ${p.maximum}${unit}`);
  return `${p.value ?? '—'}${unit}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

function scaleMax(p, value, warn, crit) {
  const given = num(p.maximum);
  const min = num(p.minimum) ?? 0;
  if (given !== undefined && given > min) return given;
  if (p.unit === '%') return 100;
  // Without a maximum only thresholds give a scale; a value alone has nothing to be measured against.
  if (warn === undefined && crit === undefined) return undefined;
  const top = Math.max(value ?? 0, warn ?? 0, crit ?? 0);
  return top > min ? top * 1.1 : min + 1;
}

/** Colour level of a value against its thresholds; thresholds below each other mean "low is bad". */
function level(value, warn, crit) {
  if (value === undefined) return 'none';
  const lowIsBad = warn !== undefined && crit !== undefined && crit < warn;
  const past = (t) => t !== undefined && (lowIsBad ? value <= t : value >= t);
  if (past(crit)) return 'critical';
  if (past(warn)) return 'warning';
  return 'ok';
}

function num(v) {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}
