/**
 * The request loop of the web app: what Polka's own `handler` does (parse
 * the URL with Polka's parser, set `path`, `url`, `originalUrl`, `query`,
 * `search` and the decoded `params`, run the matching handlers in order,
 * then `onNoMatch`; `next(err)` or a throw or rejection goes to `onError`),
 * with two differences that matter at thousands of requests a second:
 *
 * - a handler that returns no promise costs no promise: Polka wraps every
 *   step in an async function and a `.catch`, two promises per step;
 * - route lookups are memoized by method and path: Trouter tests every
 *   registered pattern in turn on every request, the same answer each time
 *   for a path. Bounded; each hit gets its own params object (handlers may
 *   write to it). Routes are all registered before the first request.
 *
 * A step runs while the answer is not ended (Polka checks `res.finished`,
 * the same flag).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Middleware, Polka } from 'polka';
import type { WebRequest } from './respond.js';

const FIND_MEMO_LIMIT = 2000;

type Step = Middleware<WebRequest>;
type Found = { params: Record<string, string>; handlers: Step[]; withParams: boolean };

export interface DispatchOptions {
  onNoMatch: Step;
  onError: (err: unknown, req: WebRequest, res: ServerResponse) => void;
}

/** `(req, res)` for http(s).createServer, running `app`'s routes (registered before the first request). */
export function createDispatch(
  app: Polka<WebRequest>,
  opts: DispatchOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const find = memoizedFind(app);
  const { onNoMatch, onError } = opts;
  return (incoming, res) => {
    const req = incoming as WebRequest;
    const info = app.parse(req);
    const path = info.pathname;
    req.path = path;
    const found = find(req.method ?? '', path);
    req.url = path + info.search;
    req.originalUrl = req.originalUrl || req.url;
    // Polka's own typing of req.query says string values; the parser gives arrays for repeated keys (as Polka does).
    req.query = (info.query ?? {}) as Record<string, string>;
    req.search = info.search;
    const params = found.withParams ? { ...found.params } : {};
    if (found.withParams && path.length > 1 && path.indexOf('%', 1) !== -1) {
      for (const [k, v] of Object.entries(params)) {
        try {
          params[k] = decodeURIComponent(v);
        } catch {
          // A malformed segment stays as sent (as in Polka).
        }
      }
    }
    req.params = params;
    const handlers = found.handlers;
    let i = 0;
    const next = (err?: unknown): void => {
      if (err) return onError(err, req, res);
      if (res.writableEnded || i > handlers.length) return;
      const step = handlers[i] ?? onNoMatch;
      i++;
      let result: unknown;
      try {
        result = step(req, res, next);
      } catch (thrown) {
        return next(thrown ?? new Error('a handler threw nothing'));
      }
      if (result !== undefined && typeof (result as Promise<unknown>)?.then === 'function') {
        (result as Promise<unknown>).then(undefined, (reason: unknown) =>
          next(reason ?? new Error('a handler rejected with nothing')),
        );
      }
    };
    next();
  };
}

// ---------------------------------------------------------------- helpers

function memoizedFind(app: Polka<WebRequest>): (method: string, path: string) => Found {
  const byMethod = new Map<string, Map<string, Found>>();
  let size = 0;
  return (method, path) => {
    let memo = byMethod.get(method);
    if (memo === undefined) {
      memo = new Map();
      byMethod.set(method, memo);
    }
    let hit = memo.get(path);
    if (hit === undefined) {
      const r = app.find(method as Parameters<typeof app.find>[0], path);
      hit = { params: r.params, handlers: r.handlers, withParams: Object.keys(r.params).length > 0 };
      if (size >= FIND_MEMO_LIMIT) {
        for (const m of byMethod.values()) m.clear();
        size = 0;
      }
      memo.set(path, hit);
      size++;
    }
    return hit;
  };
}
