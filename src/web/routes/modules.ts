/**
 * Modules: list, one, PUT to load or unload (run-time state only; the drift
 * from the file shows in the status), and the commands load, unload, enable
 * and disable (enable/disable edit the settings file through core.control,
 * and the reconciler applies the change).
 *
 * A PUT first requires `modules.load` or `modules.unload` (403 before the
 * body is read), then the body picks the exact one. A command whose
 * operation fails answers 200 with `result: 2` and the reason: a module that
 * does not start is not a defect of the API.
 */
import type { ModuleStatus } from '../../core/control.js';
import { AgentError, errorMessage } from '../../errors.js';
import { validateModuleLoaded, validateModuleUpdate } from '../bodies.js';
import { readJsonBody } from '../body.js';
import { baseUrl, seg, sendJson, type WebRequest } from '../respond.js';
import type { RouteContext } from './context.js';

const COMMANDS = ['load', 'unload', 'enable', 'disable'] as const;
const SETTINGS_REFUSALS = new Set(['AGENT_ERR_SETTINGS_UNREADABLE', 'AGENT_ERR_SETTINGS_INVALID', 'AGENT_ERR_SETTINGS_CONFLICT']);
type Command = (typeof COMMANDS)[number];

export function registerModuleRoutes(ctx: RouteContext): void {
  const control = ctx.core.control;

  ctx.route('GET', '/api/v1/modules', 'modules.list', (req, res) => {
    const base = baseUrl(req);
    sendJson(res, 200, control.modules().map((m) => moduleJson(base, m)));
  });

  ctx.route('GET', '/api/v1/modules/:module', 'modules.get', (req, res) => {
    sendJson(res, 200, moduleJson(baseUrl(req), find(ctx, req.params.module!)));
  });

  ctx.route('PUT', '/api/v1/modules', ['modules.load', 'modules.unload'], async (req, res) => {
    const body = await readJsonBody(req, ctx.maxBodySize(), validateModuleUpdate);
    sendJson(res, 200, moduleJson(baseUrl(req), await setLoaded(ctx, req, body.name, body.loaded)));
  });

  ctx.route('PUT', '/api/v1/modules/:module', ['modules.load', 'modules.unload'], async (req, res) => {
    const name = find(ctx, req.params.module!).name;
    const body = await readJsonBody(req, ctx.maxBodySize(), validateModuleLoaded);
    sendJson(res, 200, moduleJson(baseUrl(req), await setLoaded(ctx, req, name, body.loaded)));
  });

  for (const command of COMMANDS) {
    ctx.route('GET', `/api/v1/modules/:module/commands/${command}`, `modules.${command}`, async (req, res) => {
      const name = find(ctx, req.params.module!).name;
      const outcome = await runCommand(ctx, command, name);
      sendJson(res, 200, { ...outcome, module: moduleJson(baseUrl(req), outcome.status) });
    });
  }
}

/** A module's JSON with its links. */
export function moduleJson(base: string, m: ModuleStatus): Record<string, unknown> {
  const url = `${base}/api/v1/modules/${seg(m.name)}`;
  return {
    name: m.name,
    title: m.title,
    description: m.description,
    loaded: m.loaded,
    enabled: m.enabled,
    state: m.state,
    outcome: m.outcome,
    ...(m.error !== undefined ? { error: m.error } : {}),
    drift: m.drift,
    module_url: url,
    load_url: `${url}/commands/load`,
    unload_url: `${url}/commands/unload`,
    enable_url: `${url}/commands/enable`,
    disable_url: `${url}/commands/disable`,
  };
}

// ---------------------------------------------------------------- helpers

function find(ctx: RouteContext, name: string): ModuleStatus {
  const m = ctx.core.control.module(name);
  if (!m) throw new AgentError('AGENT_ERR_HTTP_NOT_FOUND', [`Module not found: ${name}`]);
  return m;
}

async function setLoaded(ctx: RouteContext, req: WebRequest, name: string, loaded: boolean): Promise<ModuleStatus> {
  const needed = loaded ? 'modules.load' : 'modules.unload';
  if (!ctx.access.allows(req, needed)) throw new AgentError('AGENT_ERR_HTTP_FORBIDDEN');
  const current = find(ctx, name);
  return loaded ? ctx.core.control.load(current.name) : ctx.core.control.unload(current.name);
}

async function runCommand(ctx: RouteContext, command: Command, name: string): Promise<{ result: 0 | 2; message: string; status: ModuleStatus }> {
  const control = ctx.core.control;
  try {
    const status = await control[command](name);
    if (status.state === 'failed' && (command === 'load' || command === 'enable')) {
      return { result: 2, message: `Failed ${command} ${name}: ${status.error ?? 'module failed'}`, status };
    }
    return { result: 0, message: `Success ${command} ${name}`, status };
  } catch (err) {
    if (err instanceof AgentError && err.status !== undefined && err.status < 500) throw err;
    // A refused settings edit (file missing, invalid or changed meanwhile) is the client's 409, not a module failure.
    if (err instanceof AgentError && SETTINGS_REFUSALS.has(err.code)) throw err;
    ctx.log.warning(`${command} ${name} failed: ${errorMessage(err)}`);
    return { result: 2, message: `Failed ${command} ${name}: ${errorMessage(err)}`, status: find(ctx, name) };
  }
}
