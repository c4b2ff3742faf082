/**
 * NSClient++'s legacy CheckSystem commands as translations to the modern
 * checks, following what CheckSystem does before it runs check_cpu,
 * check_memory, check_uptime, check_service and check_process (README:
 * "Moving from NSClient++", legacy commands). Each function takes the
 * legacy tokens and answers the modern tokens; ArgumentError for a token
 * the legacy command did not take either.
 */
import { ArgumentError } from '../arguments.js';
import {
  boundKeys,
  boundTokens,
  hasBounds,
  matchBounds,
  matchOldBounds,
  quote,
  readLegacyTokens,
  showAll,
  type Bounds,
} from './legacy-arguments.js';

const NUMERIC = [...boundKeys(), 'warn', 'crit'];

/** checkCPU → check_cpu: bounds on load, time= windows, ShowAll (long: every core). */
export function translateCheckCpu(tokens: readonly string[]): string[] {
  const t = readLegacyTokens('checkCPU', tokens, ['help', 'time', 'showall', ...NUMERIC], false);
  const bounds: Bounds = {};
  matchBounds(t, bounds, 'load', 'load', '', true);
  matchOldBounds(t, bounds, 'load', true);
  const out = boundTokens(bounds);
  const all = showAll(t);
  if (all !== undefined) {
    if (all === 'long') out.push('filter=none');
    // NSClient++ drops its ok syntax when the top syntax lists items; so does the translation.
    out.push('top-syntax=${status}: CPU Load: ${list}', 'ok-syntax=${status}: CPU Load: ${list}');
  }
  out.push('detail-syntax=${time}: average load ${load}%');
  for (const time of t.values.get('time') ?? []) out.push(`time=${time}`);
  return out;
}

/**
 * checkMem → check_memory: Max bounds on used, Min bounds on free. Types:
 * page, paged and committed (Windows' commit charge against the page file)
 * are swap here; virtual (a Windows process's address space) has no host
 * counterpart and is left out.
 */
export function translateCheckMem(tokens: readonly string[]): string[] {
  const t = readLegacyTokens('checkMem', tokens, ['help', 'type', 'showall', ...NUMERIC], false);
  const bounds: Bounds = {};
  matchBounds(t, bounds, 'used', 'free');
  matchOldBounds(t, bounds, 'used');
  const out = boundTokens(bounds);
  if (showAll(t) !== undefined) out.push('show-all');
  out.push('detail-syntax=%(type): Total: %(size) - Used: %(used) (%(used_pct)%) - Free: %(free) (%(free_pct)%)');
  const types = new Set<string>();
  for (const raw of t.values.get('type') ?? []) {
    const type = raw.toLowerCase();
    if (type === 'physical') types.add('physical');
    else if (['page', 'paged', 'committed', 'swap', 'pagefile'].includes(type)) types.add('swap');
    else if (type !== 'virtual')
      throw new ArgumentError(`checkMem: type=${raw} is not one of physical, committed, page, paged, virtual`);
  }
  if ((t.values.get('type') ?? []).length > 0 && types.size === 0) types.add('physical');
  for (const type of types) out.push(`type=${type}`);
  return out;
}

/** checkUpTime → check_uptime: bounds on uptime (MinWarn=1d: warn while up for less than a day). */
export function translateCheckUpTime(tokens: readonly string[]): string[] {
  const t = readLegacyTokens('checkUpTime', tokens, ['help', 'showall', ...NUMERIC], false);
  const bounds: Bounds = {};
  matchBounds(t, bounds, 'uptime', 'uptime');
  matchOldBounds(t, bounds, 'uptime');
  const out = boundTokens(bounds);
  const all = showAll(t);
  if (all !== undefined) out.push('show-all');
  if (all === 'long') out.push('filter=none');
  return out;
}

/** A legacy `name=state` state word as ours: 0.3.x wrote started where a unit is running. */
function serviceState(word: string): string {
  const w = word.trim().toLowerCase();
  return w === 'started' ? 'running' : w;
}

/**
 * checkServiceState → check_service: each bare token names a service that
 * must be running (or `name=state`); CRITICAL when one is in another state.
 */
export function translateCheckServiceState(tokens: readonly string[]): string[] {
  const t = readLegacyTokens('checkServiceState', tokens, ['help', 'checkall', 'exclude', 'showall'], true);
  const out = ['detail-syntax=${name}: ${state}'];
  out.push(
    showAll(t) !== undefined
      ? 'top-syntax=${status}: ${list}'
      : 'top-syntax=${status}: ${crit_list} delayed (${warn_list})',
  );
  const clauses: string[] = [];
  for (const token of t.extra) {
    const eq = token.indexOf('=');
    const name = (eq < 0 ? token : token.slice(0, eq)).trim().replace(/\.service$/, '');
    const state = eq < 0 ? 'running' : serviceState(token.slice(eq + 1));
    if (name === '') continue;
    out.push(`service=${name}`);
    clauses.push(`( name = ${quote(name)} and state != ${quote(state)} )`);
  }
  for (const e of t.values.get('exclude') ?? []) if (e !== '') out.push(`exclude=${e}`);
  if (clauses.length > 0) out.push(`crit=${clauses.join(' or ')}`);
  return out;
}

/**
 * checkProcState → check_process: each bare token names a process that must
 * run (`name=stopped` for one that must not). With Max/MinWarnCount and
 * Max/MinCritCount the bounds count the named processes in the given state.
 */
export function translateCheckProcState(tokens: readonly string[]): string[] {
  const t = readLegacyTokens('checkProcState', tokens, ['help', 'showall', ...boundKeys('count')], true);
  const bounds: Bounds = {};
  matchBounds(t, bounds, 'count', 'count', 'Count');
  const out: string[] = [];
  if (showAll(t) !== undefined) out.push('show-all');
  const named = t.extra
    .map((token) => {
      const eq = token.indexOf('=');
      return {
        name: (eq < 0 ? token : token.slice(0, eq)).trim(),
        state:
          eq < 0
            ? 'started'
            : token
                .slice(eq + 1)
                .trim()
                .toLowerCase(),
      };
    })
    .filter((p) => p.name !== '');
  for (const p of named) out.push(`process=${p.name}`);
  if (hasBounds(t, 'Count')) {
    out.push('detail-syntax=${name} : ${running}');
    if (named.length > 0)
      out.push(`filter=${named.map((p) => `( name = ${quote(p.name)} and state = ${quote(p.state)} )`).join(' or ')}`);
    out.push(...boundTokens(bounds));
  } else {
    out.push('detail-syntax=${name} : ${state}');
    if (named.length > 0)
      out.push(`crit=${named.map((p) => `( name = ${quote(p.name)} and state != ${quote(p.state)} )`).join(' or ')}`);
  }
  return out;
}
