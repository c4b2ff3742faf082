/** GET /api/v1/info and /api/v1/info/version, privilege `info.get` (the version also NSClient++'s `info.get.version`). */
import { baseUrl, sendJson } from '../respond.js';
import type { RouteContext } from './context.js';
import { hostName } from '../host-name.js';

export function registerInfoRoutes(ctx: RouteContext): void {
  ctx.route('GET', '/api/v1/info', 'info.get', (req, res) => {
    const v1 = `${baseUrl(req)}/api/v1`;
    const info = ctx.control.info();
    sendJson(res, 200, {
      name: info.name,
      version: info.version,
      started: info.started,
      pid: info.pid,
      hostname: hostName(),
      settings: info.settings,
      version_url: `${v1}/info/version`,
      status_url: `${v1}/settings/status`,
    });
  });
  ctx.route('GET', '/api/v1/info/version', ['info.get', 'info.get.version'], (_req, res) => {
    sendJson(res, 200, { version: ctx.control.info().version });
  });
}
