/** GET /api/v1/metrics in the Prometheus text format 0.0.4, privilege `metrics.list`. */
import type { RouteContext } from './context.js';

export function registerMetricsRoutes(ctx: RouteContext): void {
  ctx.route('GET', '/api/v1/metrics', 'metrics.list', (_req, res) => {
    const body = Buffer.from(ctx.metrics.render(ctx.control.status(), ctx.access.blockedAddresses()), 'utf8');
    res.writeHead(200, {
      'Content-Type': 'text/plain; version=0.0.4; charset=utf-8',
      'Content-Length': String(body.length),
      'Cache-Control': 'no-store',
    });
    res.end(body);
  });
}
