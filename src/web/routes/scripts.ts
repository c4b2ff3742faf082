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
 */
import { AgentError } from '../../errors.js';
import { validateScriptContent } from '../bodies.js';
import { parseJson, readBody, fieldsOf } from '../body.js';
import { baseUrl, seg, sendJson } from '../respond.js';
import type { RouteContext } from './context.js';

interface Runtime {
  name: string;
  module: string;
  title: string;
}

const RUNTIMES: readonly Runtime[] = [{ name: 'ext', module: 'CheckExternalScripts', title: 'External scripts' }];

export function registerScriptRoutes(ctx: RouteContext): void {
  const loaded = (): Runtime[] => RUNTIMES.filter((r) => ctx.core.control.module(r.module)?.loaded === true);
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

  ctx.route('GET', '/api/v1/scripts', 'scripts.list', (req, res) => {
    const base = baseUrl(req);
    sendJson(res, 200, loaded().map((r) => ({ name: r.name, module: r.module, title: r.title, runtime_url: `${base}/api/v1/scripts/${seg(r.name)}` })));
  });

  ctx.route('GET', '/api/v1/scripts/:runtime', 'scripts.list', async (req, res) => {
    const r = runtime(req.params.runtime!);
    const all = req.query.all === 'true' || req.query.all === '1';
    const text = await exec(r, ['list', '--json', ...(all ? ['--all'] : [])]);
    let names: unknown;
    try {
      names = JSON.parse(text);
    } catch {
      throw new AgentError('AGENT_ERR_HTTP_UNAVAILABLE', [`${r.module} answered a script list that is not JSON`]);
    }
    sendJson(res, 200, names);
  });

  ctx.route('GET', '/api/v1/scripts/:runtime/*', 'scripts.get', async (req, res) => {
    const r = runtime(req.params.runtime!);
    sendJson(res, 200, { message: await exec(r, ['show', '--script', scriptName(req.params['*'])]) });
  });

  ctx.route('PUT', '/api/v1/scripts/:runtime/*', 'scripts.add', async (req, res) => {
    const r = runtime(req.params.runtime!);
    const name = scriptName(req.params['*']);
    const raw = await readBody(req, ctx.maxBodySize());
    let content: Buffer = raw;
    if (/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
      const value = parseJson(raw.toString('utf8'));
      if (!validateScriptContent(value)) {
        throw new AgentError('AGENT_ERR_HTTP_UNPROCESSABLE', [], { details: fieldsOf(validateScriptContent.errors ?? []) });
      }
      content = Buffer.from(value.content, 'utf8');
    }
    sendJson(res, 200, { message: await exec(r, ['add', '--script', name, '--content-base64', content.toString('base64')]) });
  });

  ctx.route('DELETE', '/api/v1/scripts/:runtime/*', 'scripts.delete', async (req, res) => {
    const r = runtime(req.params.runtime!);
    sendJson(res, 200, { message: await exec(r, ['delete', '--script', scriptName(req.params['*'])]) });
  });
}
