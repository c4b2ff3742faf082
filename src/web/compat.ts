/**
 * Request rewrites for NSClient++ clients, applied before routing:
 *
 * - `/api/v2/...` is served by the `/api/v1/...` routes (NSClient++ mounts
 *   the same API under both; links in answers point to /api/v1).
 * - `X-HTTP-Method-Override: GET|POST|PUT|DELETE` replaces the request's
 *   method (for clients and proxies that only send GET and POST). Any other
 *   value, or the header given more than once (Node joins repeated headers
 *   with ", "), is ignored, as NSClient++ does. Browsers cannot send this
 *   header to another origin without a CORS preflight, which this server
 *   never grants, so it opens no cross-site request path.
 *
 * Cost per request: one prefix test on the URL and one header lookup.
 */
import type { IncomingMessage } from 'node:http';

const V2 = '/api/v2';
const OVERRIDABLE = new Set(['GET', 'POST', 'PUT', 'DELETE']);

export function applyCompat(req: IncomingMessage): void {
  const url = req.url;
  if (
    url !== undefined &&
    url.startsWith(V2) &&
    (url.length === V2.length || url[V2.length] === '/' || url[V2.length] === '?')
  ) {
    req.url = `/api/v1${url.slice(V2.length)}`;
  }
  const override = req.headers['x-http-method-override'];
  if (typeof override === 'string') {
    const method = override.trim().toUpperCase();
    if (OVERRIDABLE.has(method)) req.method = method;
  }
}
