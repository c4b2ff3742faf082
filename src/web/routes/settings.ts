/** GET /api/v1/settings/status: the reconciler's status, privilege `settings.get`. */
import { sendJson } from '../respond.js';
import type { RouteContext } from './context.js';

export function registerSettingsRoutes(ctx: RouteContext): void {
  ctx.route('GET', '/api/v1/settings/status', 'settings.get', (_req, res) => {
    sendJson(res, 200, ctx.core.control.status());
  });
}
