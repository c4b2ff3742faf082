/**
 * NSClient++'s log routes beside GET /api/v1/logs:
 *
 * - `GET /api/v1/logs/since?since=N&page&per_page` (`logs.list`): the
 *   entries after index N, oldest first (for a client that follows the log),
 *   paged like /api/v1/logs (`Link` next/last keep `since`), with
 *   `X-Log-Index` = the last index returned (N when none).
 * - `GET /api/v1/logs/status` (`logs.list`): `{errors, last_error}`, the
 *   error and critical entries since the start or the last clear.
 * - `POST /api/v1/logs` (`logs.put`): body `{file?, line?, level?, message?}`
 *   (defaults: `REST`, 0, `error`, `no message`) adds an entry under the
 *   namespace `agent:web:rest`, message and file escaped by escapeForLog
 *   (log.ts: one line, cut at 4,096 characters);
 *   answers `{index}`. One entry a request, in a body of at most
 *   LOG_POST_MAX_BYTES (or `max body size` when smaller): a larger one is
 *   413 before it is read; the buffer's own byte budget (log.ts) bounds
 *   what many of them keep.
 * - `DELETE /api/v1/logs` (`logs.delete`): empties the in-memory log and its
 *   counters; answers `{count: 0}`.
 */
import { escapeForLog } from '../../log.js';
import { readJsonBody } from '../body.js';
import { validateLogPost } from '../bodies.js';
import { baseUrl, sendJson } from '../respond.js';
import type { RouteContext } from './context.js';
import { DEFAULT_PER_PAGE, intParam, logJson, MAX_PER_PAGE } from './logs.js';

/** Characters of a posted message kept in the entry (the rest is cut, marked with …): a log line, not a document. */
const POSTED_MESSAGE_MAX = 4096;

/**
 * Bytes of a POST /api/v1/logs body: room for a message of POSTED_MESSAGE_MAX characters in any script (UTF-8). Small,
 * so a flood of posts makes little garbage: each request's body is copied a few times (bytes, text, parsed message)
 * before the collector takes it back, and V8 lets the heap grow a long way before it does.
 */
export const LOG_POST_MAX_BYTES = 16 * 1024;

export function registerLogAdminRoutes(ctx: RouteContext): void {
  const control = ctx.control;
  const rest = ctx.log.child('rest');

  ctx.route('GET', '/api/v1/logs/since', 'logs.list', (req, res) => {
    const since = intParam(req.query.since, 'since', 0, 0, Number.MAX_SAFE_INTEGER);
    const page = intParam(req.query.page, 'page', 1, 1, Number.MAX_SAFE_INTEGER);
    const perPage = intParam(req.query.per_page, 'per_page', DEFAULT_PER_PAGE, 1, MAX_PER_PAGE);
    const all = control.logs();
    let from = all.length;
    while ((all[from - 1]?.index ?? -Infinity) > since) from--;
    const count = all.length - from;
    const last = Math.max(1, Math.ceil(count / perPage));
    const items = all.slice(from + (page - 1) * perPage, Math.min(all.length, from + page * perPage));
    const url = (p: number): string =>
      `${baseUrl(req)}/api/v1/logs/since?${new URLSearchParams({ since: String(since), page: String(p), per_page: String(perPage) }).toString()}`;
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
        'X-Log-Index': String(items.at(-1)?.index ?? since),
        'X-Pagination-Count': String(count),
        'X-Pagination-Page': String(page),
        'X-Pagination-Limit': String(perPage),
      },
    );
  });

  ctx.route('GET', '/api/v1/logs/status', 'logs.list', (_req, res) => {
    const s = control.logStatus();
    sendJson(res, 200, { errors: s.errors, last_error: ctx.hidePaths(s.lastError) });
  });

  ctx.route('POST', '/api/v1/logs', 'logs.put', async (req, res) => {
    const body = await readJsonBody(req, Math.min(LOG_POST_MAX_BYTES, ctx.maxBodySize()), validateLogPost);
    const level = body.level ?? 'error';
    // The one log escaper (log-escape.ts): a posted message stays one log line.
    const message = escapeForLog(body.message ?? 'no message', POSTED_MESSAGE_MAX);
    rest[level](message, { file: escapeForLog(body.file ?? 'REST'), line: body.line ?? 0 });
    const entries = control.logs();
    sendJson(res, 200, { index: entries.at(-1)?.index ?? 0 });
  });

  ctx.route('DELETE', '/api/v1/logs', 'logs.delete', (_req, res) => {
    control.clearLogs();
    sendJson(res, 200, { count: 0 });
  });
}
