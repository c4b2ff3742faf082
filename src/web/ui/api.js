/**
 * The agent's JSON API as the page sees it: fetch with an HTTP Basic
 * header on every call, JSON error envelopes turned into ApiError, and the
 * Link header of paged lists parsed into {first, prev, next, last}.
 *
 * The page starts from the entry points (/api, then current_api; both need
 * the privilege `public`) and follows the `*_url` links from there instead
 * of building paths.
 */

/** An API answer that was not 2xx, or no answer at all (status 0). */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }

  /** True for 403: bad credentials, disallowed host or missing privilege (the API does not tell them apart). */
  get forbidden() {
    return this.status === 403;
  }
}

/** The Authorization header value for user and password (UTF-8, base64). */
export function basicAuth(user, password) {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return `Basic ${btoa(binary)}`;
}

/**
 * Parse an RFC 8288 Link header into an object keyed by rel, for example
 * `<https://h/api/v1/logs?page=2>; rel="next"` → {next: 'https://h/api/v1/logs?page=2'}.
 * Entries without a URL or a rel are skipped; a missing header gives {}.
 */
export function parseLink(header) {
  const links = {};
  if (!header) return links;
  const re = /<([^>]*)>\s*((?:;\s*[^,;<]+)*)/g;
  for (const match of header.matchAll(re)) {
    const url = match[1];
    const rels = /;\s*rel\s*=\s*"?([^";,]+)"?/i.exec(match[2]);
    if (!rels) continue;
    for (const rel of rels[1].trim().split(/\s+/)) links[rel.toLowerCase()] = url;
  }
  return links;
}

/**
 * Build the query string of a query execution from argument strings: "k=v"
 * becomes k=v, a bare "k" stays k (no "="), order is kept. Empty strings
 * are skipped.
 */
export function argumentsQuery(args) {
  return args
    .filter((a) => a.length > 0)
    .map((a) => {
      const eq = a.indexOf('=');
      if (eq <= 0) return encodeURIComponent(a);
      return `${encodeURIComponent(a.slice(0, eq))}=${encodeURIComponent(a.slice(eq + 1))}`;
    })
    .join('&');
}

/**
 * A client bound to one set of credentials. Every method resolves with the
 * parsed answer or rejects with ApiError (status 0 when the agent did not
 * answer at all).
 */
export function createApi({ user, password }) {
  const authorization = basicAuth(user, password);

  async function request(url, { method = 'GET', body, accept = 'application/json' } = {}) {
    const headers = { Accept: accept, Authorization: authorization };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let res;
    try {
      res = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
        credentials: 'omit',
      });
    } catch (err) {
      throw new ApiError(
        0,
        'network',
        `The agent did not answer (${err instanceof Error ? err.message : String(err)}).`,
      );
    }
    if (!res.ok) throw await toError(res);
    return res;
  }

  return {
    user,
    /** GET (or another method) and parse JSON. */
    async json(url, options) {
      const res = await request(url, options);
      return res.json();
    },
    /**
     * GET one page of a paged list: {items, links, count, page, limit}. The
     * numbers come from X-Pagination-* and are NaN when the header is absent.
     */
    async page(url) {
      const res = await request(url);
      const items = await res.json();
      return {
        items,
        links: parseLink(res.headers.get('Link')),
        count: Number(res.headers.get('X-Pagination-Count') ?? NaN),
        page: Number(res.headers.get('X-Pagination-Page') ?? NaN),
        limit: Number(res.headers.get('X-Pagination-Limit') ?? NaN),
      };
    },
  };
}

/**
 * The entry points: GET /api (privilege `public`, so this is also the
 * credential check: one request, one failed attempt at most for the
 * agent's rate limit), then its current_api. Resolves with the version
 * index ({modules_url, queries_url, logs_url, info_url,
 * settings_status_url, ...}); rejects with ApiError.
 */
export async function discover(api, base = location.origin) {
  const root = await api.json(new URL('/api', base).href);
  return api.json(root.current_api ?? new URL('/api/v1', base).href);
}

async function toError(res) {
  const type = res.headers.get('Content-Type') ?? '';
  let code = `HTTP_${res.status}`;
  let message = `${res.status} ${res.statusText}`.trim();
  try {
    if (type.includes('json')) {
      const body = await res.json();
      if (body && typeof body === 'object') {
        if (typeof body.code === 'string') code = body.code;
        if (typeof body.error === 'string') message = body.error;
        if (Array.isArray(body.fields)) message += ': ' + body.fields.map((f) => `${f.field} ${f.message}`).join('; ');
      }
    } else {
      const text = (await res.text()).trim();
      if (text) message = text.slice(0, 500);
    }
  } catch {
    // The status line is message enough when the body does not parse.
  }
  return new ApiError(res.status, code, message);
}
