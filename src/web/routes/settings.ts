/**
 * GET /api/v1/settings/status: the reconciler's status, privilege
 * `settings.get`; problems and warnings show files relative to the settings
 * folder (hide-paths.ts), `file` stays the settings file's own path. With
 * `[/settings/source]`, `source` says where pulled settings stand.
 *
 * POST /api/v1/settings/pull: pull the settings source now, privilege
 * `settings.put` (as a reload); answers once the pull is applied or
 * refused, with the source's status (409 AGENT_ERR_SOURCE_NONE without a
 * source).
 */
import type { SettingsProblem, SourceStatus } from '../../core/control.js';
import { sendJson } from '../respond.js';
import type { RouteContext } from './context.js';

export function registerSettingsRoutes(ctx: RouteContext): void {
  const shownSource = (s: SourceStatus): SourceStatus => ({
    ...s,
    lastError: s.lastError === null ? null : ctx.hidePaths(s.lastError),
  });
  ctx.route('GET', '/api/v1/settings/status', 'settings.get', (_req, res) => {
    const status = ctx.control.status();
    // Problems name files and quote messages: no absolute path of the machine in them.
    const shown = (p: SettingsProblem): SettingsProblem => ({
      ...p,
      message: ctx.hidePaths(p.message),
      file: ctx.hidePaths(p.file),
    });
    sendJson(res, 200, {
      ...status,
      problems: status.problems.map(shown),
      warnings: status.warnings.map(shown),
      ...(status.source ? { source: shownSource(status.source) } : {}),
    });
  });
  ctx.route('POST', '/api/v1/settings/pull', 'settings.put', async (_req, res) => {
    const source = await ctx.control.pullSettings();
    sendJson(res, 200, { status: source.lastError === null ? 'success' : 'failed', source: shownSource(source) });
  });
}
