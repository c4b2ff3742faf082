/**
 * `GET /api/v1/schedules` (privilege `schedules.list`): the Scheduler's
 * schedules with their last and next run and counters, as the Scheduler
 * module's query `scheduler_list` answers them (src/modules/scheduler/).
 * An empty list when the Scheduler is not loaded. Each row: name, command,
 * alias, interval_s, channel, target, report, last_run, last_duration_ms,
 * last_status, last_message, next_run (ISO 8601 or null), running, runs,
 * skipped (runs due while the previous one still ran), submitted; a
 * schedule whose settings cannot run has only name and problem.
 */
import { baseUrl, sendJson } from '../respond.js';
import type { RouteContext } from './context.js';

export const SCHEDULER_LIST_QUERY = 'scheduler_list';

export function registerScheduleRoutes(ctx: RouteContext): void {
  ctx.route('GET', '/api/v1/schedules', 'schedules.list', async (req, res) => {
    if (!ctx.core.getQuery(SCHEDULER_LIST_QUERY)) return sendJson(res, 200, []);
    const answer = await ctx.core.query(SCHEDULER_LIST_QUERY, []);
    const rows = answer.result === 0 ? (JSON.parse(answer.message) as Record<string, unknown>[]) : [];
    const base = baseUrl(req);
    sendJson(
      res,
      200,
      rows.map((r) => ({
        ...r,
        query_url:
          typeof r.command === 'string'
            ? `${base}/api/v1/queries/${encodeURIComponent(r.command.split(' ')[0] ?? '')}`
            : null,
      })),
    );
  });
}
