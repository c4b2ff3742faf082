/**
 * Scripts over the API, through the exec command of the runtime's module
 * (contract with CheckExternalScripts): `list --json [--all]`,
 * `show --script NAME`, `add --script NAME --content-base64 B64`,
 * `delete --script NAME`. Exec result 0 → 200 `{message}`, 1 → 404,
 * 2 → 400, 3 → 503. The runtime `ext` is the module CheckExternalScripts and
 * exists only while that module is loaded (otherwise 404).
 * A script name may contain `/` (the rest of the path after the runtime).
 * PUT takes the raw script text, or JSON `{content}` with Content-Type
 * application/json.
 * Privileges: ours (`scripts.list`, `scripts.get`, `scripts.add`,
 * `scripts.delete`), or NSClient++'s per runtime (`scripts.list.runtimes`,
 * `scripts.lists.<R>`, `scripts.get.<R>`, `scripts.add.<R>`,
 * `scripts.delete.<R>`, R being the runtime's module, CheckExternalScripts
 * for `ext`, else the runtime's name).
 */
import { AgentError } from '../../errors.js';
import { validateScriptContent } from '../bodies.js';
import { parseJson, readBody, fieldsOf } from '../body.js';
import { baseUrl, seg, sendJson } from '../respond.js';
import { queryFlag } from '../query-flag.js';
import { labelled, type RouteContext } from './context.js';
import type { Requirement } from '../requirement.js';

interface Runtime {
  name: string;
  module: string;
  title: string;
}

const RUNTIMES: readonly Runtime[] = [{ name: 'ext', module: 'CheckExternalScripts', title: 'External scripts' }];

/** Our privilege, or NSClient++'s `<prefix>.<R>` for the runtime in the path (R: its module, else the name as given). */
function perRuntime(ours: string, nsclient: string): Requirement {
  return labelled(`${ours}|${nsclient}.<R>`, (req) => [
    ours,
    `${nsclient}.${RUNTIMES.find((r) => r.name === req.params.runtime)?.module ?? req.params.runtime ?? ''}`,
  ]);
}

export function registerScriptRoutes(ctx: RouteContext): void {
  const loaded = (): Runtime[] => RUNTIMES.filter((r) => ctx.control.module(r.module)?.loaded === true);
  const runtime = (name: string): Runtime => {
    const r = loaded().find((x) => x.name === name);
    if (!r) throw new AgentError('AGENT_ERR_HTTP_NOT_FOUND', [`Runtime not found: ${name}`]);
    return r;
  };
  const exec = async (r: Runtime, args: string[]): Promise<string> => {
    const out = await ctx.core.exec(r.module, args);
    switch (out.result) {
      case 0:
        return out.message;
      case 1:
        throw new AgentError('AGENT_ERR_HTTP_NOT_FOUND', [out.message]);
      case 2:
        throw new AgentError('AGENT_ERR_HTTP_BAD_REQUEST', [out.message]);
      default:
        throw new AgentError('AGENT_ERR_HTTP_UNAVAILABLE', [out.message]);
    }
  };
  const scriptName = (raw: string | undefined): string => {
    const name = raw ?? '';
    if (name === '') throw new AgentError('AGENT_ERR_HTTP_BAD_REQUEST', ['Invalid script name']);
    return name;
  };

  ctx.route('GET', '/api/v1/scripts', ['scripts.list', 'scripts.list.runtimes'], (req, res) => {
    const base = baseUrl(req);
    sendJson(
      res,
      200,
      loaded().map((r) => ({
        name: r.name,
        module: r.module,
        title: r.title,
        runtime_url: `${base}/api/v1/scripts/${seg(r.name)}`,
      })),
    );
  });

  ctx.route('GET', '/api/v1/scripts/:runtime', perRuntime('scripts.list', 'scripts.lists'), async (req, res) => {
    const r = runtime(req.params.runtime);
    const all = queryFlag(req.query.all, 'all', false);
    const text = await exec(r, ['list', '--json', ...(all ? ['--all'] : [])]);
    let names: unknown;
    try {
      names = JSON.parse(text);
    } catch {
      throw new AgentError('AGENT_ERR_HTTP_UNAVAILABLE', [`${r.module} answered a script list that is not JSON`]);
    }
    sendJson(res, 200, names);
  });

  ctx.route('GET', '/api/v1/scripts/:runtime/*', perRuntime('scripts.get', 'scripts.get'), async (req, res) => {
    const r = runtime(req.params.runtime);
    sendJson(res, 200, { message: await exec(r, ['show', '--script', scriptName(req.params['*'])]) });
  });

  ctx.route('PUT', '/api/v1/scripts/:runtime/*', perRuntime('scripts.add', 'scripts.add'), async (req, res) => {
    const r = runtime(req.params.runtime);
    const name = scriptName(req.params['*']);
    const raw = await readBody(req, ctx.maxBodySize());
    let content: Buffer = raw;
    if (/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
      const value = parseJson(raw.toString('utf8'));
      if (!validateScriptContent(value)) {
        throw new AgentError('AGENT_ERR_HTTP_UNPROCESSABLE', [], {
          details: fieldsOf(validateScriptContent.errors ?? []),
        });
      }
      content = Buffer.from(value.content, 'utf8');
    }
    sendJson(res, 200, {
      message: await exec(r, ['add', '--script', name, '--content-base64', content.toString('base64')]),
    });
  });

  ctx.route(
    'DELETE',
    '/api/v1/scripts/:runtime/*',
    perRuntime('scripts.delete', 'scripts.delete'),
    async (req, res) => {
      const r = runtime(req.params.runtime);
      sendJson(res, 200, { message: await exec(r, ['delete', '--script', scriptName(req.params['*'])]) });
    },
  );
}
