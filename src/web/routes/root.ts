/**
 * GET /api (versions) and GET /api/v1 (the index of resources), privilege
 * `public`; GET and DELETE /api/v1/login (NSClient++'s `login.get`): who the
 * credentials are. GET /api/v1 (the index, `public`) also names the caller
 * and the privileges its role grants, so a client (the web UI) offers only
 * what the caller may do. There are no session tokens (every request carries its
 * credentials), so `key` is absent and DELETE has nothing to revoke.
 */
import { baseUrl, sendJson } from '../respond.js';
import type { RouteContext } from './context.js';

export function registerRootRoutes(ctx: RouteContext): void {
  ctx.route('GET', '/api', 'public', (req, res) => {
    const v1 = `${baseUrl(req)}/api/v1`;
    sendJson(res, 200, { legacy_api: v1, current_api: v1, beta_api: v1 });
  });
  ctx.route('GET', '/api/v1/login', 'login.get', (req, res) => {
    sendJson(res, 200, { user: req.principal?.user });
  });
  ctx.route('DELETE', '/api/v1/login', 'login.get', (_req, res) => {
    sendJson(res, 200, { status: 'ok' });
  });
  ctx.route('GET', '/api/v1', 'public', (req, res) => {
    const v1 = `${baseUrl(req)}/api/v1`;
    sendJson(res, 200, {
      modules_url: `${v1}/modules`,
      queries_url: `${v1}/queries`,
      aliases_url: `${v1}/aliases`,
      schedules_url: `${v1}/schedules`,
      scripts_url: `${v1}/scripts`,
      logs_url: `${v1}/logs`,
      info_url: `${v1}/info`,
      settings_status_url: `${v1}/settings/status`,
      settings_pull_url: `${v1}/settings/pull`,
      settings_url: `${v1}/settings`,
      metrics_url: `${v1}/metrics`,
      // Who asked and what they may do: the UI offers only the actions these grant.
      user: req.principal?.user,
      privileges: req.principal?.privileges ?? [],
    });
  });
}
