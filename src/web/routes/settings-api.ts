/**
 * NSClient++'s settings API over the settings file.
 *
 * - `GET /api/v1/settings{/path}` (`settings.get`): the effective settings
 *   (defaults applied, variables expanded, objects resolved) as
 *   `[{path, key, value}]`, secrets as `******`; with a path, the sections
 *   at and under it (case-insensitive); nothing there is a 404.
 *   `?origins=true` adds each value's `origin` (`agent.ini:27`, `object
 *   default, agent.ini:40`, `default`), as `config-agent settings show` prints it.
 * - `PUT /api/v1/settings{/path}` (`settings.put`): body `{path?, key,
 *   value?}` or an array of them; `path` defaults to the URL's; a value sets
 *   the key, an empty or missing value removes it. `{status: "success",
 *   keys: n, files: [written]}`.
 * - `DELETE /api/v1/settings{/path}?key=K&recursive=true|false`
 *   (`settings.delete`): removes the key K of the path, or without a key the
 *   path's section and (recursive, the default) every section under it; or a
 *   body `{path?, key?}` or an array of them. Nothing to remove is a 404; no
 *   path and no key is a 400. `{status: "success", keys: n, recursive, files}`.
 * - `POST /api/v1/settings/command` (`settings.put`): `{"command": "load" |
 *   "reload"}` re-reads the file and reconciles; `"save"` has nothing to do
 *   (edits are written at once). Another command is a 404.
 *
 * Every edit goes through control.editSettings: the minimal-edit writer
 * under the agent's guard (409 while the file is missing or invalid; 422,
 * nothing written, when the result would not validate), so an edit over the
 * API is a small diff of the file in git. With `[/includes]` each edit goes
 * to the file that holds its key; `files` names the files written.
 */
import type { ServerResponse } from 'node:http';
import { AgentError } from '../../errors.js';
import type { SettingsEdit } from '../../core/control.js';
import { requireCanonicalKey, requireCanonicalPath } from '../../settings/model/canonical-name.js';
import { effectiveEntries } from '../../settings/model/effective.js';
import type { IniSection } from '../../settings/ini/read-ini.js';
import { parseJson, fieldsOf, readBody, readJsonBody } from '../body.js';
import {
  validateSettingsCommand as validateCommand,
  validateSettingsDelete as validateDelete,
  validateSettingsPut as validatePut,
  type SettingsEntryBody as Entry,
} from '../bodies.js';
import { refuseSeededRoleRemoval, requireEditPrivileges } from '../edit-guard.js';
import { sendJson, type WebRequest } from '../respond.js';
import { queryFlag } from '../query-flag.js';
import type { RouteContext } from './context.js';

// long function: registers the settings routes, which share the route context and its helpers
export function registerSettingsApiRoutes(ctx: RouteContext): void {
  const control = ctx.control;

  const list = (req: WebRequest, res: ServerResponse): void => {
    const path = urlPath(req);
    const entries = effectiveEntries(ctx.control.settings(), {
      origins: queryFlag(req.query.origins, 'origins', false),
    }).filter((e) => path === undefined || under(e.path, path));
    if (entries.length === 0) throw new AgentError('AGENT_ERR_HTTP_NOT_FOUND', [`No settings under ${path}`]);
    sendJson(res, 200, entries);
  };
  ctx.route('GET', '/api/v1/settings', 'settings.get', list);
  ctx.route('GET', '/api/v1/settings/*', 'settings.get', list);

  ctx.route('POST', '/api/v1/settings/command', 'settings.put', async (req, res) => {
    const body = await readJsonBody(req, ctx.maxBodySize(), validateCommand);
    if (body.command === 'save') return sendJson(res, 200, { status: 'success' });
    if (body.command !== 'load' && body.command !== 'reload')
      throw new AgentError('AGENT_ERR_HTTP_NOT_FOUND', [`Unknown command: ${body.command} (load, reload, save)`]);
    const status = await control.reload();
    sendJson(res, 200, { status: 'success', result: status.lastResult });
  });

  const put = async (req: WebRequest, res: ServerResponse): Promise<void> => {
    const body = await readJsonBody(req, ctx.maxBodySize(), validatePut);
    const fallback = urlPath(req);
    const edits: SettingsEdit[] = (Array.isArray(body) ? body : [body]).map((e, i) => {
      const raw = e.path ?? fallback;
      if (raw === undefined)
        throw unprocessable(Array.isArray(body) ? `${i}.path` : 'path', 'is required when the URL names no path');
      // The canonical form, once: the privilege check and the writer get these same objects.
      const section = requireCanonicalPath(raw);
      const key = requireCanonicalKey(section, e.key as string);
      const value = e.value === undefined ? '' : String(e.value);
      return Object.freeze(value === '' ? { op: 'remove-key', section, key } : { op: 'set', section, key, value });
    });
    requireEditPrivileges(req, 'put', edits);
    refuseSeededRoleRemoval(edits, () => []);
    const files = await control.editSettings(edits);
    sendJson(res, 200, { status: 'success', keys: edits.length, files });
  };
  ctx.route('PUT', '/api/v1/settings', 'settings.put', put);
  ctx.route('PUT', '/api/v1/settings/*', 'settings.put', put);

  const del = async (req: WebRequest, res: ServerResponse): Promise<void> => {
    const recursive = queryFlag(req.query.recursive, 'recursive', true);
    const key = req.query.key;
    if (key !== undefined && typeof key !== 'string')
      throw new AgentError('AGENT_ERR_HTTP_BAD_REQUEST', ['key is given more than once']);
    const raw = await readBody(req, ctx.maxBodySize());
    const fallback = urlPath(req);
    let targets: Entry[];
    if (raw.length > 0) {
      const value = parseJson(raw.toString('utf8'));
      if (!validateDelete(value))
        throw new AgentError('AGENT_ERR_HTTP_UNPROCESSABLE', [], { details: fieldsOf(validateDelete.errors ?? []) });
      targets = Array.isArray(value) ? value : [value];
    } else {
      targets = [{ ...(key !== undefined && key !== '' ? { key } : {}) }];
    }
    const wanted = targets.map((t) => {
      const raw = t.path ?? fallback;
      if (raw === undefined)
        throw new AgentError('AGENT_ERR_HTTP_BAD_REQUEST', [
          'a path is required: /api/v1/settings/<path>, or path in the body',
        ]);
      const path = requireCanonicalPath(raw);
      return Object.freeze({ path, key: t.key === undefined ? undefined : requireCanonicalKey(path, t.key) });
    });
    let removed = 0;
    const files = await control.editSettings((view) => {
      const sections = view.sections();
      const edits: SettingsEdit[] = [];
      removed = 0;
      for (const w of wanted) {
        if (w.key !== undefined) {
          const count = sections
            .filter((s) => same(s.path, w.path))
            .reduce((n, s) => n + s.entries.filter((e) => same(e.key, w.key as string)).length, 0);
          if (count === 0)
            throw new AgentError('AGENT_ERR_HTTP_NOT_FOUND', [`No key "${w.key}" in [${w.path}] of the settings file`]);
          edits.push({ op: 'remove-key', section: w.path, key: w.key });
          removed += count;
          continue;
        }
        const matched = sections.filter((s) => same(s.path, w.path) || (recursive && under(s.path, w.path)));
        if (matched.length === 0)
          throw new AgentError('AGENT_ERR_HTTP_NOT_FOUND', [
            `No section [${w.path}]${recursive ? ' or below it' : ''} in the settings file`,
          ]);
        // Deepest first, as NSClient++ does.
        for (const s of deepestFirst(matched)) edits.push({ op: 'remove-section', section: s.path });
        removed += matched.reduce((n, s) => n + s.entries.length, 0);
      }
      // What goes: each removed key, and each key and the section itself of a removed section.
      const gone = edits.flatMap((e) =>
        e.op === 'remove-key'
          ? [{ section: e.section, key: e.key }]
          : [
              { section: e.section },
              ...sections
                .filter((s) => same(s.path, e.section))
                .flatMap((s) => s.entries.map((x) => ({ section: e.section, key: x.key }))),
            ],
      );
      requireEditPrivileges(req, 'delete', gone);
      refuseSeededRoleRemoval(edits, () =>
        sections.filter((s) => same(s.path, '/settings/web/roles')).flatMap((s) => s.entries.map((x) => x.key)),
      );
      return edits;
    });
    sendJson(res, 200, { status: 'success', keys: removed, recursive, files });
  };
  ctx.route('DELETE', '/api/v1/settings', 'settings.delete', del);
  ctx.route('DELETE', '/api/v1/settings/*', 'settings.delete', del);
}

// ---------------------------------------------------------------- helpers

/** The settings path named by the URL after /api/v1/settings (`/settings/WEB/server`), or undefined. */
function urlPath(req: WebRequest): string | undefined {
  const rest = req.params['*'];
  if (rest === undefined || rest === '') return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(rest);
  } catch {
    throw new AgentError('AGENT_ERR_HTTP_BAD_REQUEST', [`malformed path: ${rest}`]);
  }
  const trimmed = decoded.replace(/\/+$/, '');
  return trimmed === '' ? undefined : `/${trimmed.replace(/^\/+/, '')}`;
}

function same(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** `path` is `base` or below it (case-insensitive, whole segments). */
function under(path: string, base: string): boolean {
  const p = path.toLowerCase();
  const b = base.toLowerCase().replace(/\/+$/, '');
  return p === b || p.startsWith(`${b}/`) || b === '';
}

function deepestFirst(sections: IniSection[]): IniSection[] {
  return [...sections].sort((a, b) => b.path.split('/').length - a.path.split('/').length);
}

function unprocessable(field: string, message: string): AgentError {
  return new AgentError('AGENT_ERR_HTTP_UNPROCESSABLE', [], { details: [{ field, message }] });
}
