/**
 * Counters of the web server and the agent, rendered in the Prometheus text
 * format 0.0.4 for GET /api/v1/metrics. Label values are bounded by the
 * callers: routes are registered patterns, query names are registered
 * queries (anything else is counted as `unknown`), statuses are HTTP codes.
 */
import type { ReconcilerStatus, SourceStatus } from '../core/control.js';
import { countRefusal, DURATION_BUCKETS, refusedCounts, workCounts, type Histogram } from '../core/work-counters.js';
import { renderProcessMetrics } from './process-metrics.js';
import { passiveCounts } from '../core/passive-counters.js';

export class WebMetrics {
  /** Requests by label text, in the order each combination was first seen. */
  private readonly requests = new Map<string, { n: number }>();
  private readonly authFailures = new Map<string, number>();

  /**
   * The counter of each method, route and status, found without building a string per request
   * (the method and route are the same strings each time; the status a number): its label text is
   * made once per combination.
   */
  private readonly requestCells = new Map<string, Map<string, Map<number, { n: number }>>>();

  observeRequest(method: string, route: string, status: number): void {
    let byRoute = this.requestCells.get(method);
    if (byRoute === undefined) this.requestCells.set(method, (byRoute = new Map<string, Map<number, { n: number }>>()));
    let byStatus = byRoute.get(route);
    if (byStatus === undefined) byRoute.set(route, (byStatus = new Map<number, { n: number }>()));
    let cell = byStatus.get(status);
    if (cell === undefined) {
      cell = { n: 0 };
      byStatus.set(status, cell);
      this.requests.set(labels({ method, route, status: String(status) }), cell);
    }
    cell.n++;
  }

  authFailure(reason: string): void {
    inc(this.authFailures, labels({ reason }));
    countRefusal('web', reason);
  }

  /** The whole exposition text. */
  render(status: ReconcilerStatus, blockedAddresses: number): string {
    const out: string[] = [];
    family(out, 'agent_settings_reloads_total', 'counter', 'Settings reloads by result.');
    for (const [result, n] of Object.entries(status.reloads))
      out.push(`agent_settings_reloads_total${labels({ result })} ${n}`);
    family(
      out,
      'agent_settings_info',
      'gauge',
      'Settings in force: applied hash, file hash and result of the last reload (value is always 1).',
    );
    out.push(
      `agent_settings_info${labels({ applied_hash: status.appliedHash, file_hash: status.fileHash, last_result: status.lastResult })} 1`,
    );
    family(
      out,
      'agent_settings_last_reload_successful',
      'gauge',
      '1 when the last reload applied the settings (or none was tried yet), 0 when it failed (as Prometheus has).',
    );
    out.push(`agent_settings_last_reload_successful ${status.lastResult === 'invalid' ? 0 : 1}`);
    family(out, 'agent_settings_last_reload_timestamp_seconds', 'gauge', 'Unix time of the last reload (0 when none).');
    out.push(
      `agent_settings_last_reload_timestamp_seconds ${status.lastReload ? Date.parse(status.lastReload) / 1000 : 0}`,
    );
    family(out, 'agent_settings_problems', 'gauge', 'Problems of the last rejected settings edit.');
    out.push(`agent_settings_problems ${status.problems.length}`);
    renderSource(out, status.source);
    family(out, 'agent_module_loaded', 'gauge', '1 when the module is loaded.');
    for (const m of status.modules) out.push(`agent_module_loaded${labels({ module: m.name })} ${m.loaded ? 1 : 0}`);
    family(out, 'agent_module_enabled', 'gauge', '1 when the settings enable the module.');
    for (const m of status.modules) out.push(`agent_module_enabled${labels({ module: m.name })} ${m.enabled ? 1 : 0}`);
    family(out, 'agent_web_requests_total', 'counter', 'HTTP requests by method, route and status.');
    for (const [l, cell] of this.requests) out.push(`agent_web_requests_total${l} ${cell.n}`);
    family(out, 'agent_web_auth_failures_total', 'counter', 'Refused requests by reason.');
    for (const [l, n] of this.authFailures) out.push(`agent_web_auth_failures_total${l} ${n}`);
    family(
      out,
      'agent_web_auth_blocked_addresses',
      'gauge',
      'Addresses refused now after too many failed authentications.',
    );
    out.push(`agent_web_auth_blocked_addresses ${blockedAddresses}`);
    renderWork(out);
    family(
      out,
      'agent_queue_refused_total',
      'counter',
      'Queries refused at once because the module queue was full, by module.',
    );
    for (const [module, n] of refusedCounts()) out.push(`agent_queue_refused_total${labels({ module })} ${n}`);
    renderPassive(out);
    renderProcessMetrics(out);
    return out.join('\n') + '\n';
  }
}

// ---------------------------------------------------------------- helpers

/** The settings source ([/settings/source]), only when the settings name one. */
function renderSource(out: string[], source: SourceStatus | undefined): void {
  if (!source) return;
  family(
    out,
    'agent_settings_source_info',
    'gauge',
    'Pulled settings in force: the source URL and the revision (ETag or sha256:…; empty before any), from_cache 1 when it is the cached pull of an earlier run (value is always 1).',
  );
  out.push(
    `agent_settings_source_info${labels({ url: source.url, revision: source.revision ?? '', from_cache: source.fromCache ? '1' : '0' })} 1`,
  );
  family(
    out,
    'agent_settings_last_pull_success_timestamp_seconds',
    'gauge',
    'Unix time of the last successful pull of the settings source (200 or 304; 0 when none in this run).',
  );
  out.push(
    `agent_settings_last_pull_success_timestamp_seconds ${source.lastSuccess ? Date.parse(source.lastSuccess) / 1000 : 0}`,
  );
  family(out, 'agent_settings_pull_failures_total', 'counter', 'Failed or refused pulls of the settings source.');
  out.push(`agent_settings_pull_failures_total ${source.pulls.failed}`);
  family(
    out,
    'agent_settings_pulls_total',
    'counter',
    'Pulls of the settings source by result (changed: applied, unchanged: 304 or the same text).',
  );
  out.push(`agent_settings_pulls_total${labels({ result: 'changed' })} ${source.pulls.changed}`);
  out.push(`agent_settings_pulls_total${labels({ result: 'unchanged' })} ${source.pulls.unchanged}`);
}

/** The agent's work by channel, listener and script (core/work-counters.ts). */
function renderWork(out: string[]): void {
  const w = workCounts();
  family(
    out,
    'agent_query_duration_seconds',
    'histogram',
    'Duration of queries by channel (web, nrpe, agent) and query (unknown: a name no module registers).',
  );
  for (const d of w.queryDurations)
    histogram(out, 'agent_query_duration_seconds', { channel: d.channel, query: d.query }, d.histogram);
  family(
    out,
    'agent_query_results_total',
    'counter',
    'Query results by channel, query and status (0 OK .. 3 UNKNOWN).',
  );
  for (const r of w.queryResults)
    out.push(
      `agent_query_results_total${labels({ channel: r.channel, query: r.query, result: String(r.result) })} ${r.count}`,
    );
  family(
    out,
    'agent_refused_total',
    'counter',
    'Connections and queries refused by channel and the setting that refused them (allowed hosts, allowed queries, max connections, max connections per address, nasty characters).',
  );
  for (const r of w.refusals)
    out.push(`agent_refused_total${labels({ channel: r.channel, reason: r.reason })} ${r.count}`);
  family(out, 'agent_connections_total', 'counter', 'Connections accepted by listener (web, nrpe, agent).');
  for (const [listener, n] of w.connections) out.push(`agent_connections_total${labels({ listener })} ${n}`);
  family(out, 'agent_script_duration_seconds', 'histogram', 'Duration of external script runs by script.');
  for (const [script, h] of w.scriptDurations) histogram(out, 'agent_script_duration_seconds', { script }, h);
  family(
    out,
    'agent_script_runs_total',
    'counter',
    'External script runs by script and outcome (exited, timeout, stopped, not started).',
  );
  for (const o of w.scriptOutcomes)
    out.push(`agent_script_runs_total${labels({ script: o.script, outcome: o.outcome })} ${o.count}`);
}

function histogram(out: string[], name: string, by: Record<string, string>, h: Histogram): void {
  DURATION_BUCKETS.forEach((b, i) => out.push(`${name}_bucket${labels({ ...by, le: String(b) })} ${h.counts[i]}`));
  out.push(`${name}_bucket${labels({ ...by, le: '+Inf' })} ${h.count}`);
  out.push(`${name}_sum${labels(by)} ${h.sum}`);
  out.push(`${name}_count${labels(by)} ${h.count}`);
}

/** Passive checks: the Scheduler's runs and the channel modules' queues (core/passive-counters.ts). */
function renderPassive(out: string[]): void {
  const p = passiveCounts();
  family(out, 'agent_schedules', 'gauge', 'Schedules the Scheduler runs now.');
  out.push(`agent_schedules ${p.scheduled}`);
  for (const [kind, help] of [
    ['runs', 'Scheduled queries run.'],
    ['skipped', 'Scheduled runs skipped because the previous run of the schedule still ran.'],
    ['submitted', 'Scheduled results submitted on a channel a module listens to.'],
    ['unsent', 'Scheduled results submitted on a channel nobody listens to.'],
  ] as const) {
    family(out, `agent_schedule_${kind}_total`, 'counter', help);
    out.push(`agent_schedule_${kind}_total ${p.schedule[kind]}`);
  }
  for (const [kind, help] of [
    ['sent', 'Passive results a server took, by module and target.'],
    ['dropped', 'Passive results dropped because the queue of the target was full, by module and target.'],
    ['rejected', 'Passive results the server refused for good (an unknown Icinga 2 object), by module and target.'],
  ] as const) {
    family(out, `agent_passive_${kind}_total`, 'counter', help);
    for (const q of p.queues)
      out.push(`agent_passive_${kind}_total${labels({ module: q.module, target: q.target })} ${q[kind]}`);
  }
  family(out, 'agent_passive_queued', 'gauge', 'Passive results waiting to be sent, by module and target.');
  for (const q of p.queues)
    if (q.queued) out.push(`agent_passive_queued${labels({ module: q.module, target: q.target })} ${q.queued()}`);
}

function family(out: string[], name: string, type: string, help: string): void {
  out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
}

function inc(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** A label set `{k="v",…}` with the values escaped as the text format wants them. */
export function labels(values: Record<string, string>): string {
  const parts = Object.entries(values).map(
    ([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`,
  );
  return `{${parts.join(',')}}`;
}
