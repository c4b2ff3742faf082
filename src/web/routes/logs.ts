/**
 * GET /api/v1/logs: the in-memory log, newest first, paged. `page` is
 * 1-based (default 1), `per_page` 1..MAX_PER_PAGE (default 20), `level` a
 * comma list of levels (debug, info, warning, error, critical). Anything
 * else in them is a 400. A page past the end is an empty list. Headers:
 * `Link` with first, prev (page > 1), next (more entries) and last, each an
 * absolute URL that keeps `per_page` and `level`; `X-Pagination-Count`
 * (matching entries), `X-Pagination-Page`, `X-Pagination-Limit`.
 */
import { AgentError } from '../../errors.js';
import { isLogLevel, type LogLevel, type LogRecord } from '../../log.js';
import { baseUrl, sendJson } from '../respond.js';
import type { RouteContext } from './context.js';

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 500;

export function registerLogRoutes(ctx: RouteContext): void {
  ctx.route('GET', '/api/v1/logs', 'logs.list', (req, res) => {
    const page = intParam(req.query.page, 'page', 1, 1, Number.MAX_SAFE_INTEGER);
    const perPage = intParam(req.query.per_page, 'per_page', DEFAULT_PER_PAGE, 1, MAX_PER_PAGE);
    const levelText = single(req.query.level, 'level');
    const levels = parseLevels(levelText);
    const entries = ctx.control.logs(levels.size > 0 ? levels : undefined);
    const count = entries.length;
    const last = Math.max(1, Math.ceil(count / perPage));
    // Newest first: page 1 holds the last `perPage` entries, reversed.
    const end = count - (page - 1) * perPage;
    const start = Math.max(0, end - perPage);
    const items = end > 0 ? entries.slice(start, end).reverse() : [];
    const url = (p: number): string => {
      const q = new URLSearchParams({ page: String(p), per_page: String(perPage) });
      if (levelText) q.set('level', levelText);
      return `${baseUrl(req)}/api/v1/logs?${q.toString()}`;
    };
    const links = [`<${url(1)}>; rel="first"`];
    if (page > 1) links.push(`<${url(Math.min(page - 1, last))}>; rel="prev"`);
    if (page < last) links.push(`<${url(page + 1)}>; rel="next"`);
    links.push(`<${url(last)}>; rel="last"`);
    sendJson(
      res,
      200,
      items.map((r) => logJson(r, ctx.hidePaths)),
      {
        Link: links.join(', '),
        'X-Pagination-Count': String(count),
        'X-Pagination-Page': String(page),
        'X-Pagination-Limit': String(perPage),
      },
    );
  });
}

/** One log entry as the API shows it; `hide` keeps absolute paths of the machine out of message and file. */
export function logJson(r: LogRecord, hide: (text: string) => string): Record<string, unknown> {
  return {
    index: r.index,
    level: r.level,
    namespace: r.namespace,
    message: hide(r.message),
    date: r.date,
    ...(r.file !== undefined ? { file: hide(r.file) } : {}),
    ...(r.line !== undefined ? { line: r.line } : {}),
  };
}

// ---------------------------------------------------------------- helpers

export function single(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string')
    throw new AgentError('AGENT_ERR_HTTP_BAD_REQUEST', [`${name} is given more than once`]);
  return value;
}

export function intParam(value: unknown, name: string, fallback: number, min: number, max: number): number {
  const text = single(value, name);
  if (text === undefined || text === '') return fallback;
  if (!/^\d{1,15}$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new AgentError('AGENT_ERR_HTTP_BAD_REQUEST', [
      max === Number.MAX_SAFE_INTEGER
        ? `${name} must be a whole number of ${min} or more`
        : `${name} must be a whole number from ${min} to ${max}`,
    ]);
  }
  return Number(text);
}

function parseLevels(text: string | undefined): Set<LogLevel> {
  const out = new Set<LogLevel>();
  if (!text) return out;
  for (const raw of text.split(',')) {
    const l = raw.trim().toLowerCase();
    if (l === '') continue;
    if (!isLogLevel(l))
      throw new AgentError('AGENT_ERR_HTTP_BAD_REQUEST', [
        `unknown level "${raw}" (debug, info, warning, error, critical)`,
      ]);
    out.add(l);
  }
  return out;
}
