/**
 * Queries: list, one, `commands/execute` and `commands/execute_nagios`;
 * `/api/v1/aliases` lists the query aliases among them.
 * Each query-string pair is one argument, in order: `k=v` gives "k=v", a
 * bare `k` gives "k" (`+` and `%20` decode to a space). JSON by default
 * (`execute`: result 0-3 and perf as an object by alias; `execute_nagios`:
 * result as "OK".."UNKNOWN" and perf as one Nagios string);
 * `Accept: text/plain` (as the first listed type) gives the Nagios text
 * `message|perf\n` with the status in `X-Check-Result`. The HTTP status is
 * 200 for every check status (a CRITICAL check is an answer, not a server
 * error) unless `[/settings/WEB/server] nsclient status codes` asks for
 * NSClient++'s 202/500/503. An unknown query is a 200 with result 3 (the
 * core names it). The query is aborted when the client goes away.
 */
import type { ServerResponse } from 'node:http';
import type { QueryInfo } from '../../core/core.js';
import { formatPerfList, STATUS_NAMES, toNagios, type PerfValue, type QueryResult } from '../../core/result.js';
import { AgentError } from '../../errors.js';
import { WEB_SECTION } from '../access.js';
import { baseUrl, routeParam, seg, sendJson, sendText } from '../respond.js';
import type { RouteContext } from './context.js';

export function registerQueryRoutes(ctx: RouteContext): void {
  ctx.route('GET', '/api/v1/queries', 'queries.list', (req, res) => {
    const base = baseUrl(req);
    sendJson(
      res,
      200,
      ctx.core.listQueries().map((q) => ({ ...queryJson(base, q), query_url: queryUrl(base, q.name) })),
    );
  });

  // Query aliases ([/settings/external scripts/alias]) are queries too; this lists only them.
  ctx.route('GET', '/api/v1/aliases', 'aliases.list', (req, res) => {
    const base = baseUrl(req);
    const aliases = ctx.core.listQueries().filter((q) => q.aliasOf !== undefined);
    sendJson(
      res,
      200,
      aliases.map((q) => ({ ...queryJson(base, q), alias_of: q.aliasOf, query_url: queryUrl(base, q.name) })),
    );
  });

  ctx.route('GET', '/api/v1/queries/:query', 'queries.get', (req, res) => {
    const q = ctx.core.getQuery(routeParam(req, 'query'));
    if (!q) throw new AgentError('AGENT_ERR_HTTP_NOT_FOUND', [`Query not found: ${routeParam(req, 'query')}`]);
    sendJson(res, 200, queryJson(baseUrl(req), q));
  });

  ctx.route('GET', '/api/v1/queries/:query/commands/execute', 'queries.execute', async (req, res) => {
    const result = await runQuery(ctx, routeParam(req, 'query'), queryArguments(req.search ?? ''), res);
    if (wantsText(req.headers.accept)) return sendTextResult(ctx, res, result);
    sendJson(res, 200, {
      command: result.command,
      result: result.result,
      lines: [{ message: result.message, perf: perfJson(result.perf) }],
    });
  });

  ctx.route('GET', '/api/v1/queries/:query/commands/execute_nagios', 'queries.execute', async (req, res) => {
    const result = await runQuery(ctx, routeParam(req, 'query'), queryArguments(req.search ?? ''), res);
    if (wantsText(req.headers.accept)) return sendTextResult(ctx, res, result);
    sendJson(res, 200, {
      command: result.command,
      result: STATUS_NAMES[result.result],
      lines: [{ message: result.message, perf: formatPerfList(result.perf) }],
    });
  });
}

/**
 * Run a query for an HTTP client: aborted when the client goes away, counted
 * and timed on the channel web (core/work-counters.ts).
 */
export async function runQuery(
  ctx: RouteContext,
  name: string,
  args: string[],
  res: ServerResponse,
): Promise<QueryResult> {
  const abort = new AbortController();
  const onClose = (): void => {
    if (!res.writableFinished) abort.abort();
  };
  res.once('close', onClose);
  try {
    return await ctx.core.query(name, args, { signal: abort.signal, channel: 'web' });
  } finally {
    res.off('close', onClose);
  }
}

/**
 * The query string as check arguments, in order. Throws
 * AGENT_ERR_HTTP_BAD_REQUEST for a malformed percent escape.
 */
export function queryArguments(search: string): string[] {
  const text = search.startsWith('?') ? search.slice(1) : search;
  if (text === '') return [];
  const out: string[] = [];
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    out.push(eq === -1 ? decode(pair) : `${decode(pair.slice(0, eq))}=${decode(pair.slice(eq + 1))}`);
  }
  return out;
}

// ---------------------------------------------------------------- helpers

/** NSClient++'s text-mode HTTP status by check status (OK, WARNING, CRITICAL, UNKNOWN). */
const NSCLIENT_TEXT_STATUS = [200, 202, 500, 503] as const;

function queryUrl(base: string, name: string): string {
  return `${base}/api/v1/queries/${seg(name)}`;
}

function queryJson(base: string, q: QueryInfo): Record<string, unknown> {
  return {
    name: q.name,
    module: q.module,
    title: q.title,
    description: q.description,
    execute_url: `${queryUrl(base, q.name)}/commands/execute`,
    execute_nagios_url: `${queryUrl(base, q.name)}/commands/execute_nagios`,
  };
}

/**
 * Text mode: `message|perf` and a newline, `X-Check-Result` naming the
 * status; HTTP 200 for every status, or NSClient++'s 202/500/503 for
 * WARNING/CRITICAL/UNKNOWN when `nsclient status codes` is on.
 */
function sendTextResult(ctx: RouteContext, res: ServerResponse, result: QueryResult): void {
  const nsclient = ctx.getSnapshot().sections[WEB_SECTION]['nsclient status codes'];
  sendText(res, nsclient ? NSCLIENT_TEXT_STATUS[result.result] : 200, `${toNagios(result)}\n`, {
    'X-Check-Result': STATUS_NAMES[result.result],
  });
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    throw new AgentError('AGENT_ERR_HTTP_BAD_REQUEST', [`malformed query string: ${s}`]);
  }
}

function wantsText(accept: string | undefined): boolean {
  if (!accept) return false;
  // split gives at least one part.
  const first = (accept.split(',')[0] ?? '').split(';')[0]?.trim().toLowerCase();
  return first === 'text/plain';
}

function perfJson(perf: readonly PerfValue[]): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const p of perf) out[p.alias] = perfFields(p);
  return out;
}

/** One perf item's value and the thresholds and range it has: `{value, unit?, warning?, critical?, minimum?, maximum?}`. */
export function perfFields(p: PerfValue): Record<string, unknown> {
  const item: Record<string, unknown> = { value: p.value };
  if (p.unit !== undefined) item.unit = p.unit;
  if (p.warning !== undefined) item.warning = p.warning;
  if (p.critical !== undefined) item.critical = p.critical;
  if (p.minimum !== undefined) item.minimum = p.minimum;
  if (p.maximum !== undefined) item.maximum = p.maximum;
  return item;
}
