/**
 * The web UI's static files from `src/web/ui/` (read from the source tree,
 * resolved from the package root, since tsc does not copy them), served at
 * `/` with no authentication. `/` serves index.html.
 *
 * Guarantees: only GET and HEAD, only paths outside `/api`; a path that
 * decodes badly, holds a NUL or a `..` segment, or resolves outside the UI
 * folder is not served (falls through to 404); only regular files are
 * served, with a content type from a fixed table (others are
 * application/octet-stream), `X-Content-Type-Options: nosniff`, a weak ETag
 * from size and mtime, `Cache-Control: no-cache` (revalidate every time) and
 * 304 for a matching If-None-Match.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { isInside } from '../path-inside.js';
import { PACKAGE_ROOT } from '../package-root.js';
import type { ServerResponse } from 'node:http';
import type { Middleware, NextHandler } from 'polka';
import type { WebRequest } from './respond.js';

/** `<package root>/src/web/ui` (this file runs from dist/src/web/ or inside the bundle dist/agent.js). */
export const UI_DIR = join(PACKAGE_ROOT, 'src/web/ui');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
};

export function createStatic(root: string = UI_DIR): Middleware<WebRequest> {
  const base = resolve(root);
  // API requests pass straight on (no promise per request); only UI paths go to the async part.
  return (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || req.path === '/api' || req.path.startsWith('/api/'))
      return next();
    return serve(req, res, next);
  };
  async function serve(req: WebRequest, res: ServerResponse, next: NextHandler): Promise<void> {
    const file = safePath(base, req.path === '/' ? '/index.html' : req.path);
    if (file === undefined) return next();
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) return next();
    req.routeLabel = 'static';
    const etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
    const headers: Record<string, string> = {
      'Content-Type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'Cache-Control': 'no-cache',
      'X-Content-Type-Options': 'nosniff',
      ETag: etag,
    };
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    const body = await readFile(file).catch(() => undefined);
    if (body === undefined) return next();
    res.writeHead(200, { ...headers, 'Content-Length': String(body.length) });
    res.end(req.method === 'HEAD' ? undefined : body);
  }
}

/** The file for a URL path inside `base`, or undefined when the path is not acceptable. */
export function safePath(base: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const parts = decoded.split('/');
  if (parts.some((p) => p === '..' || p === '.')) return undefined;
  const full = resolve(join(base, ...parts.filter((p) => p !== '')));
  if (!isInside(base, full)) return undefined;
  return full;
}
