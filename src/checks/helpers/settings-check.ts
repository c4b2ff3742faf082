/**
 * check_settings: whether the settings in force are the ones meant, for a
 * poller (Nagios, Icinga) to alert on. CRITICAL while the settings last
 * read (a local edit) or pulled ([/settings/source]) are refused, with the
 * first problem; WARNING when the source has failed `max-failures` polls in
 * a row (unreachable, an HTTP error) or the revision in force is older
 * than `max-age`; OK otherwise, with the revision in force. Perf data:
 * seconds since the last good pull and since the last change. The systemd
 * STATUS= line says the same (settingsStatusLine). Answers in the running
 * agent, which keeps the reconciler's and the source's status.
 */
import type { SettingsHealth } from '../../core/core.js';
import type { QueryResult } from '../../core/result.js';
import { parseDurationMs } from '../../formats/duration.js';

export interface SettingsCheckOptions {
  maxFailures: number;
  /** Milliseconds; 0: no age limit. */
  maxAgeMs: number;
}

/** `max-failures=3 max-age=1d` (and NSClient++'s key=value forms); throws on a bad value. */
export function settingsCheckOptions(args: readonly string[]): SettingsCheckOptions {
  const o: SettingsCheckOptions = { maxFailures: 3, maxAgeMs: 0 };
  for (const a of args) {
    const [k = '', v = ''] = a.split(/=(.*)/s);
    if (k === 'max-failures' && /^\d+$/.test(v)) o.maxFailures = Number(v);
    else if (k === 'max-age' && Number.isFinite(parseDurationMs(v))) o.maxAgeMs = parseDurationMs(v);
    else throw new Error(`check_settings: unknown argument ${a} (max-failures=N, max-age=DURATION such as 1d)`);
  }
  return o;
}

const seconds = (iso: string | null, now: number): number | undefined =>
  iso === null ? undefined : Math.max(0, Math.round((now - Date.parse(iso)) / 1000));

/** The answer of check_settings for `health` at `now`. */
export function settingsCheck(
  health: SettingsHealth | undefined,
  o: SettingsCheckOptions,
  now = Date.now(),
): Pick<QueryResult, 'result' | 'message' | 'perf'> {
  if (!health)
    return {
      result: 3,
      message: 'UNKNOWN: check_settings answers in the running agent (ask it over NRPE, the agent protocol or the API)',
      perf: [],
    };
  const src = health.source;
  const perf: QueryResult['perf'] = [];
  const sincePull = src ? seconds(src.lastSuccess, now) : undefined;
  const sinceChange = src ? seconds(src.lastChange, now) : undefined;
  if (sincePull !== undefined) perf.push({ alias: 'since_good_pull', value: sincePull, unit: 's' });
  if (sinceChange !== undefined) perf.push({ alias: 'since_change', value: sinceChange, unit: 's' });
  const first = health.problems[0];
  if (health.lastResult === 'invalid' && first)
    return { result: 2, message: `CRITICAL: the settings last read are refused: ${first.message}`, perf };
  if (src?.lastError != null && src.refused)
    return { result: 2, message: `CRITICAL: the settings pulled are refused: ${src.lastError}`, perf };
  const revision = src ? (src.revision ?? 'nothing pulled yet') : `local ${health.appliedHash.slice(0, 12)}`;
  if (src?.lastError != null && src.failuresInARow >= o.maxFailures)
    return {
      result: 1,
      message: `WARNING: the settings source failed ${src.failuresInARow} polls in a row: ${src.lastError}; in force: ${revision}`,
      perf,
    };
  if (o.maxAgeMs > 0 && sinceChange !== undefined && sinceChange * 1000 > o.maxAgeMs)
    return { result: 1, message: `WARNING: revision ${revision} is ${sinceChange} s old`, perf };
  return { result: 0, message: `OK: settings in force, revision ${revision}`, perf };
}

/** The systemd STATUS= words for the same state (run.ts). */
export function settingsStatusLine(health: SettingsHealth | undefined): string {
  const r = settingsCheck(health, { maxFailures: 3, maxAgeMs: 0 });
  return r.result === 0
    ? 'settings OK'
    : r.message.replace(/^\w+: /, `settings ${['', 'WARNING', 'CRITICAL'][r.result] ?? ''}: `);
}
