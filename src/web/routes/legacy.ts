/**
 * NSClient++'s legacy routes (before /api), for clients that still use them:
 * Icinga's check_nscp_api (`GET /query/<command>?args` with the `password`
 * header), NSClient++'s own NSCPClient (`POST /query.pb`), and the old
 * status, log and reload calls. Each needs the privilege `legacy` (which the
 * role `legacy` holds), except `GET /core/isalive`, which needs no
 * authentication, as in NSClient++.
 *
 * - `GET /query/:command` (a trailing `/` is allowed): query-string pairs
 *   are the arguments as in `/api/v1/queries/.../execute`; the answer is
 *   NSClient++'s QueryResponseMessage JSON, `{payload: [{command, result:
 *   "OK"|…, lines: [{message, perf: [{alias, float_value: {…}}]}]}]}`
 *   (string perf values as `string_value: {value}`), always 200.
 * - `POST /query.pb`: the body is a serialized QueryRequestMessage, handed to
 *   the core as it came; the answer is the serialized QueryResponseMessage
 *   (`application/x-protobuf`). Bytes that do not decode are a 400.
 * - `GET /log/status` `{status: {count, error}}` (error and critical entries
 *   since the start or the last reset, and the last one's message);
 *   `GET /log/messages?pos=N` `{log: {data: [{file, line, type, date,
 *   message}], pos}}` with the entries after index N, oldest first, `pos`
 *   being the last index returned (poll again with it); `POST /log/reset`
 *   empties the log `{status: "ok"}`.
 * - `POST /core/reload` re-reads the settings file and reconciles, then
 *   answers `{status: "reload", result}` (`result` as lastResult of
 *   /api/v1/settings/status); `GET /core/isalive` answers `{status: "ok"}`,
 *   or `"reload"` while a reload requested here runs.
 */
import { STATUS_NAMES, type PerfValue, type QueryResult } from '../../core/result.js';
import { AgentError } from '../../errors.js';
import { readBody } from '../body.js';
import { sendJson } from '../respond.js';
import type { RouteContext } from './context.js';
import { perfFields, queryArguments, runQuery } from './queries.js';

const LEGACY = 'legacy';
/** Most entries one `/log/messages` answer carries; poll again with the returned `pos` for more. */
const MAX_MESSAGES = 1000;

export function registerLegacyRoutes(ctx: RouteContext): void {
  const control = ctx.control;
  let reloading = 0;

  ctx.route('GET', '/query/:command', LEGACY, async (req, res) => {
    const name = req.params.command;
    const result = await runQuery(ctx, name, queryArguments(req.search ?? ''), res);
    sendJson(res, 200, legacyQueryJson(result));
  });

  ctx.route('POST', '/query.pb', LEGACY, async (req, res) => {
    const request = await readBody(req, ctx.maxBodySize());
    let answer: Uint8Array;
    // Cancelled when the client goes away before the answer, as runQuery does for the other routes.
    const gone = new AbortController();
    const onClose = (): void => {
      if (!res.writableFinished) gone.abort();
    };
    res.once('close', onClose);
    try {
      answer = await ctx.core.queryRaw(request, { signal: gone.signal, channel: 'web' });
    } catch (err) {
      if (gone.signal.aborted) return;
      if (err instanceof AgentError && err.code === 'AGENT_ERR_PROTOBUF')
        throw new AgentError('AGENT_ERR_HTTP_BAD_REQUEST', [err.message]);
      throw err;
    } finally {
      res.off('close', onClose);
    }
    res.writeHead(200, {
      'Content-Type': 'application/x-protobuf',
      'Content-Length': String(answer.length),
      'Cache-Control': 'no-store',
    });
    res.end(answer);
  });

  ctx.openRoute('GET', '/core/isalive', (_req, res) => {
    sendJson(res, 200, { status: reloading > 0 ? 'reload' : 'ok' });
  });

  ctx.route('POST', '/core/reload', LEGACY, async (_req, res) => {
    reloading++;
    try {
      const status = await control.reload();
      sendJson(res, 200, { status: 'reload', result: status.lastResult });
    } finally {
      reloading--;
    }
  });

  ctx.route('GET', '/log/status', LEGACY, (_req, res) => {
    const s = control.logStatus();
    sendJson(res, 200, { status: { count: s.errors, error: ctx.hidePaths(s.lastError) } });
  });

  ctx.route('GET', '/log/messages', LEGACY, (req, res) => {
    const raw = req.query.pos;
    const text = raw === undefined ? '0' : raw;
    if (typeof text !== 'string' || !/^\d{1,15}$/.test(text))
      throw new AgentError('AGENT_ERR_HTTP_BAD_REQUEST', ['pos must be a whole number of 0 or more, given once']);
    const pos = Number(text);
    const entries = control.logs();
    // Entries are in index order: find the first after pos, then take at most MAX_MESSAGES.
    let from = entries.length;
    while (from > 0 && entries[from - 1].index > pos) from--;
    const data = entries.slice(from, from + MAX_MESSAGES).map((r) => ({
      file: ctx.hidePaths(r.file ?? r.namespace),
      line: r.line ?? 0,
      type: r.level,
      date: r.date,
      message: ctx.hidePaths(r.message),
    }));
    const last = from + data.length - 1;
    sendJson(res, 200, { log: { data, pos: data.length > 0 ? entries[last].index : pos } });
  });

  ctx.route('POST', '/log/reset', LEGACY, (_req, res) => {
    control.clearLogs();
    sendJson(res, 200, { status: 'ok' });
  });
}

/** NSClient++'s JSON of a QueryResponseMessage with one payload. */
export function legacyQueryJson(r: QueryResult): Record<string, unknown> {
  return {
    payload: [
      {
        command: r.command,
        result: STATUS_NAMES[r.result],
        lines: [{ message: r.message, perf: r.perf.map(legacyPerf) }],
      },
    ],
  };
}

function legacyPerf(p: PerfValue): Record<string, unknown> {
  if (typeof p.value === 'string') return { alias: p.alias, string_value: { value: p.value } };
  return { alias: p.alias, float_value: perfFields(p) };
}
