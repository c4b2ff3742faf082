/**
 * Counters of the web server and the agent, rendered in the Prometheus text
 * format 0.0.4 for GET /api/v1/metrics. Label values are bounded by the
 * callers: routes are registered patterns, query names are registered
 * queries (anything else is counted as `unknown`), statuses are HTTP codes.
 */
import type { ReconcilerStatus } from '../core/control.js';
import { refusedCounts } from '../core/work-counters.js';
import { renderProcessMetrics } from './process-metrics.js';

const QUERY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

export class WebMetrics {
  private readonly requests = new Map<string, number>();
  private readonly authFailures = new Map<string, number>();
  private readonly queryDurations = new Map<string, Histogram>();
  private readonly queryResults = new Map<string, number>();

  /** Label text by `method route status`: built once per combination, not per request. */
  private readonly requestLabels = new Map<string, string>();

  observeRequest(method: string, route: string, status: number): void {
    const key = `${method} ${route} ${status}`;
    let l = this.requestLabels.get(key);
    if (l === undefined) {
      l = labels({ method, route, status: String(status) });
      this.requestLabels.set(key, l);
    }
    inc(this.requests, l);
  }

  authFailure(reason: string): void {
    inc(this.authFailures, labels({ reason }));
  }

  observeQuery(query: string, seconds: number, result: number): void {
    let h = this.queryDurations.get(query);
    if (!h) {
      h = { counts: QUERY_BUCKETS.map(() => 0), sum: 0, count: 0 };
      this.queryDurations.set(query, h);
    }
    QUERY_BUCKETS.forEach((b, i) => {
      if (seconds <= b) h.counts[i]++;
    });
    h.sum += seconds;
    h.count++;
    inc(this.queryResults, labels({ query, result: String(result) }));
  }

  /** The whole exposition text. */
  render(status: ReconcilerStatus, blockedAddresses: number): string {
    const out: string[] = [];
    family(out, 'agent_settings_reloads_total', 'counter', 'Settings reloads by result.');
    for (const [result, n] of Object.entries(status.reloads)) out.push(`agent_settings_reloads_total${labels({ result })} ${n}`);
    family(out, 'agent_settings_info', 'gauge', 'Settings in force: applied hash, file hash and result of the last reload (value is always 1).');
    out.push(`agent_settings_info${labels({ applied_hash: status.appliedHash, file_hash: status.fileHash, last_result: status.lastResult })} 1`);
    family(out, 'agent_settings_last_reload_successful', 'gauge', '1 when the last reload applied the settings (or none was tried yet), 0 when it failed (as Prometheus has).');
    out.push(`agent_settings_last_reload_successful ${status.lastResult === 'invalid' ? 0 : 1}`);
    family(out, 'agent_settings_last_reload_timestamp_seconds', 'gauge', 'Unix time of the last reload (0 when none).');
    out.push(`agent_settings_last_reload_timestamp_seconds ${status.lastReload ? Date.parse(status.lastReload) / 1000 : 0}`);
    family(out, 'agent_settings_problems', 'gauge', 'Problems of the last rejected settings edit.');
    out.push(`agent_settings_problems ${status.problems.length}`);
    family(out, 'agent_module_loaded', 'gauge', '1 when the module is loaded.');
    for (const m of status.modules) out.push(`agent_module_loaded${labels({ module: m.name })} ${m.loaded ? 1 : 0}`);
    family(out, 'agent_module_enabled', 'gauge', '1 when the settings enable the module.');
    for (const m of status.modules) out.push(`agent_module_enabled${labels({ module: m.name })} ${m.enabled ? 1 : 0}`);
    family(out, 'agent_web_requests_total', 'counter', 'HTTP requests by method, route and status.');
    for (const [l, n] of this.requests) out.push(`agent_web_requests_total${l} ${n}`);
    family(out, 'agent_web_auth_failures_total', 'counter', 'Refused requests by reason.');
    for (const [l, n] of this.authFailures) out.push(`agent_web_auth_failures_total${l} ${n}`);
    family(out, 'agent_web_auth_blocked_addresses', 'gauge', 'Addresses refused now after too many failed authentications.');
    out.push(`agent_web_auth_blocked_addresses ${blockedAddresses}`);
    family(out, 'agent_query_duration_seconds', 'histogram', 'Duration of queries run through the API.');
    for (const [query, h] of this.queryDurations) {
      QUERY_BUCKETS.forEach((b, i) => out.push(`agent_query_duration_seconds_bucket${labels({ query, le: String(b) })} ${h.counts[i]}`));
      out.push(`agent_query_duration_seconds_bucket${labels({ query, le: '+Inf' })} ${h.count}`);
      out.push(`agent_query_duration_seconds_sum${labels({ query })} ${h.sum}`);
      out.push(`agent_query_duration_seconds_count${labels({ query })} ${h.count}`);
    }
    family(out, 'agent_query_results_total', 'counter', 'Query results through the API by status (0 OK .. 3 UNKNOWN).');
    for (const [l, n] of this.queryResults) out.push(`agent_query_results_total${l} ${n}`);
    family(out, 'agent_queue_refused_total', 'counter', 'Queries refused at once because the module queue was full, by module.');
    for (const [module, n] of refusedCounts()) out.push(`agent_queue_refused_total${labels({ module })} ${n}`);
    renderProcessMetrics(out);
    return out.join('\n') + '\n';
  }
}

// ---------------------------------------------------------------- helpers

function family(out: string[], name: string, type: string, help: string): void {
  out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
}

function inc(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function labels(values: Record<string, string>): string {
  const parts = Object.entries(values).map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`);
  return `{${parts.join(',')}}`;
}
