/**
 * GET /api/v1/metrics in the Prometheus text format 0.0.4, privilege `metrics.list`; and
 * GET /api/v1/metrics/checks?query=NAME&query=NAME…, privilege `queries.execute`: runs the named
 * queries (their default arguments, one after the other, at most MAX_CHECKS) and answers their
 * states and perf data as gauges (web/check-metrics.ts), so Prometheus scrapes the checks.
 */
import type { ServerResponse } from 'node:http';
import { AgentError } from '../../errors.js';
import type { QueryResult } from '../../core/result.js';
import { renderCheckMetrics } from '../check-metrics.js';
import type { RouteContext } from './context.js';
import { runQuery } from './queries.js';

/** Queries one scrape of /api/v1/metrics/checks may run. */
const MAX_CHECKS = 32;

export function registerMetricsRoutes(ctx: RouteContext): void {
  ctx.route('GET', '/api/v1/metrics', 'metrics.list', (_req, res) => {
    sendExposition(res, ctx.metrics.render(ctx.control.status(), ctx.access.blockedAddresses()));
  });

  ctx.route('GET', '/api/v1/metrics/checks', 'queries.execute', async (req, res) => {
    const names = [
      ...new Set(
        new URLSearchParams(req.search)
          .getAll('query')
          .map((n) => n.trim())
          .filter(Boolean),
      ),
    ];
    if (names.length === 0)
      throw new AgentError('AGENT_ERR_HTTP_BAD_REQUEST', [
        'name the checks to export: ?query=check_cpu&query=check_memory (each runs with its default arguments)',
      ]);
    if (names.length > MAX_CHECKS)
      throw new AgentError('AGENT_ERR_HTTP_BAD_REQUEST', [
        `at most ${MAX_CHECKS} queries per scrape (${names.length} given)`,
      ]);
    const results: QueryResult[] = [];
    for (const name of names)
      results.push({ ...(await runQuery(ctx, name, [], res)), command: ctx.core.getQuery(name)?.name ?? name });
    sendExposition(res, renderCheckMetrics(results));
  });
}

function sendExposition(res: ServerResponse, text: string): void {
  const body = Buffer.from(text, 'utf8');
  res.writeHead(200, {
    'Content-Type': 'text/plain; version=0.0.4; charset=utf-8',
    'Content-Length': String(body.length),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}
