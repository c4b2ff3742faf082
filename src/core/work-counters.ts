/**
 * Counters of the agent's work, process-wide, that GET /api/v1/metrics
 * shows (web/metrics.ts): queries by channel and command (count, duration,
 * result), refusals by channel and reason, connections by listener, script
 * runs by script and outcome with their durations, and work refused because
 * a module's queue was full (`agent_queue_refused_total`). Label values are
 * bounded by the callers: channels and listeners are the fixed names below,
 * queries registered names (anything else is `unknown`), scripts configured
 * names, reasons fixed texts.
 */

/** Where a query came from: the web API, an NRPE peer, an agent-protocol peer, a check_nt peer. */
export type Channel = 'web' | 'nrpe' | 'agent' | 'nsclient';

/** Upper bounds (seconds) of the duration histograms, as Prometheus' client libraries choose them. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;

export interface Histogram {
  /** Per bucket of DURATION_BUCKETS: observations at most that long (cumulative, as exposed). */
  counts: number[];
  sum: number;
  count: number;
}

const refused = new Map<string, number>();
const queryDurations = new Map<string, { channel: Channel; query: string; histogram: Histogram }>();
const queryResults = new Map<string, { channel: Channel; query: string; result: number; count: number }>();
const refusals = new Map<string, { channel: string; reason: string; count: number }>();
const connections = new Map<string, number>();
const scriptDurations = new Map<string, Histogram>();
const scriptOutcomes = new Map<string, { script: string; outcome: string; count: number }>();

export function countRefused(module: string): void {
  refused.set(module, (refused.get(module) ?? 0) + 1);
}

/** The queue refusals so far, by module. */
export function refusedCounts(): ReadonlyMap<string, number> {
  return refused;
}

/** One query answered for `channel`: `query` is the registered name, or `unknown`; `result` its status (0 OK .. 3 UNKNOWN). */
export function observeQuery(channel: Channel, query: string, seconds: number, result: number): void {
  const key = `${channel}\0${query}`;
  let d = queryDurations.get(key);
  if (!d) queryDurations.set(key, (d = { channel, query, histogram: newHistogram() }));
  observe(d.histogram, seconds);
  const rkey = `${key}\0${result}`;
  const r = queryResults.get(rkey);
  if (r) r.count++;
  else queryResults.set(rkey, { channel, query, result, count: 1 });
}

/**
 * One request or connection refused on `channel` (web, nrpe, agent), for `reason`: a fixed text
 * naming the setting that refused it (`allowed hosts`, `allowed queries`, `max connections`, …).
 */
export function countRefusal(channel: string, reason: string): void {
  const key = `${channel}\0${reason}`;
  const r = refusals.get(key);
  if (r) r.count++;
  else refusals.set(key, { channel, reason, count: 1 });
}

/** One connection accepted by `listener` (web, nrpe, agent). */
export function countConnection(listener: string): void {
  connections.set(listener, (connections.get(listener) ?? 0) + 1);
}

/** One run of the configured script `script`: how long it ran and how it ended (exited, timeout, stopped, failed to start). */
export function observeScript(
  script: string,
  seconds: number,
  outcome: 'exited' | 'timeout' | 'stopped' | 'not started',
): void {
  let h = scriptDurations.get(script);
  if (!h) scriptDurations.set(script, (h = newHistogram()));
  observe(h, seconds);
  const key = `${script}\0${outcome}`;
  const o = scriptOutcomes.get(key);
  if (o) o.count++;
  else scriptOutcomes.set(key, { script, outcome, count: 1 });
}

/** Everything counted so far, for rendering (live views: read them, do not keep them). */
export function workCounts() {
  return {
    queryDurations: queryDurations.values(),
    queryResults: queryResults.values(),
    refusals: refusals.values(),
    connections: connections.entries(),
    scriptDurations: scriptDurations.entries(),
    scriptOutcomes: scriptOutcomes.values(),
  };
}

// ---------------------------------------------------------------- helpers

function newHistogram(): Histogram {
  return { counts: DURATION_BUCKETS.map(() => 0), sum: 0, count: 0 };
}

function observe(h: Histogram, seconds: number): void {
  for (const [i, b] of DURATION_BUCKETS.entries()) if (seconds <= b) h.counts[i] = (h.counts[i] ?? 0) + 1;
  h.sum += seconds;
  h.count++;
}
