/**
 * GET /api/v1/settings/status: the reconciler's status, privilege
 * `settings.get`; problems and warnings show files relative to the settings
 * folder (hide-paths.ts), `file` stays the settings file's own path.
 */
import type { SettingsProblem } from '../../core/control.js';
import { sendJson } from '../respond.js';
import type { RouteContext } from './context.js';

export function registerSettingsRoutes(ctx: RouteContext): void {
  ctx.route('GET', '/api/v1/settings/status', 'settings.get', (_req, res) => {
    const status = ctx.control.status();
    // Problems name files and quote messages: no absolute path of the machine in them.
    const shown = (p: SettingsProblem): SettingsProblem => ({ ...p, message: ctx.hidePaths(p.message), file: ctx.hidePaths(p.file) });
    sendJson(res, 200, { ...status, problems: status.problems.map(shown), warnings: status.warnings.map(shown) });
  });
}
