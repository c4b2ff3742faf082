/**
 * Modules: list, one, PUT to load or unload (run-time state only; the drift
 * from the file shows in the status), and the commands load, unload, enable
 * and disable (enable/disable edit the settings file through the control interface,
 * and the reconciler applies the change).
 *
 * A PUT first requires `modules.load` or `modules.unload` (403 before the
 * body is read), then the body picks the exact one. A command whose
 * operation fails answers 200 with `result: 2` and the reason: a module that
 * does not start is not a defect of the API.
 *
 * A request that would stop the web server itself (unload or disable of
 * WEBServer, or a PUT with loaded=false for it) is answered first, 202 with
 * `{result: 0, message, module}` and `Connection: close`, and the control
 * call starts once that answer has been flushed: the listener closing under
 * a request that waits for it would otherwise leave the client without an
 * answer. A failure of that later call is logged.
 */
import type { ServerResponse } from 'node:http';
import type { ModuleStatus } from '../../core/control.js';
import { AgentError, errorMessage } from '../../errors.js';
import { validateModuleLoaded, validateModuleUpdate } from '../bodies.js';
import { readJsonBody } from '../body.js';
import { baseUrl, routeParam, seg, sendJson, type WebRequest } from '../respond.js';
import type { RouteContext } from './context.js';

const COMMANDS = ['load', 'unload', 'enable', 'disable'] as const;
/** The module serving this API. */
const SELF = 'WEBServer';
const SELF_STOPPING = `${SELF} is stopping; this connection closes`;
const SETTINGS_REFUSALS = new Set([
  'AGENT_ERR_SETTINGS_UNREADABLE',
  'AGENT_ERR_SETTINGS_INVALID',
  'AGENT_ERR_SETTINGS_CONFLICT',
  'AGENT_ERR_SETTINGS_NOT_FOUND',
]);
type Command = (typeof COMMANDS)[number];

export function registerModuleRoutes(ctx: RouteContext): void {
  const control = ctx.control;

  ctx.route('GET', '/api/v1/modules', 'modules.list', (req, res) => {
    const base = baseUrl(req);
    sendJson(
      res,
      200,
      control.modules().map((m) => moduleJson(base, m)),
    );
  });

  ctx.route('GET', '/api/v1/modules/:module', 'modules.get', (req, res) => {
    sendJson(res, 200, moduleJson(baseUrl(req), find(ctx, routeParam(req, 'module'))));
  });

  ctx.route('PUT', '/api/v1/modules', ['modules.load', 'modules.unload'], async (req, res) => {
    const body = await readJsonBody(req, ctx.maxBodySize(), validateModuleUpdate);
    const current = allowedTarget(ctx, req, body.name, body.loaded);
    if (!body.loaded && current.name === SELF) return answerThenStop(ctx, req, res, current, 'unload');
    sendJson(res, 200, moduleJson(baseUrl(req), await setLoaded(ctx, current.name, body.loaded)));
  });

  ctx.route('PUT', '/api/v1/modules/:module', ['modules.load', 'modules.unload'], async (req, res) => {
    const name = find(ctx, routeParam(req, 'module')).name;
    const body = await readJsonBody(req, ctx.maxBodySize(), validateModuleLoaded);
    const current = allowedTarget(ctx, req, name, body.loaded);
    if (!body.loaded && current.name === SELF) return answerThenStop(ctx, req, res, current, 'unload');
    sendJson(res, 200, moduleJson(baseUrl(req), await setLoaded(ctx, current.name, body.loaded)));
  });

  for (const command of COMMANDS) {
    ctx.route('GET', `/api/v1/modules/:module/commands/${command}`, `modules.${command}`, async (req, res) => {
      const current = find(ctx, routeParam(req, 'module'));
      const name = current.name;
      if (name === SELF && (command === 'unload' || command === 'disable'))
        return answerThenStop(ctx, req, res, current, command);
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
    ...(m.listening !== undefined ? { listening: m.listening } : {}),
    module_url: url,
    load_url: `${url}/commands/load`,
    unload_url: `${url}/commands/unload`,
    enable_url: `${url}/commands/enable`,
    disable_url: `${url}/commands/disable`,
  };
}

// ---------------------------------------------------------------- helpers

function find(ctx: RouteContext, name: string): ModuleStatus {
  const m = ctx.control.module(name);
  if (!m) throw new AgentError('AGENT_ERR_HTTP_NOT_FOUND', [`Module not found: ${name}`]);
  return m;
}

/** The module to load or unload, once the caller is known to hold the exact privilege (403 otherwise, 404 for no such module). */
function allowedTarget(ctx: RouteContext, req: WebRequest, name: string, loaded: boolean): ModuleStatus {
  const needed = loaded ? 'modules.load' : 'modules.unload';
  if (!ctx.access.allows(req, needed)) throw new AgentError('AGENT_ERR_HTTP_FORBIDDEN');
  return find(ctx, name);
}

async function setLoaded(ctx: RouteContext, name: string, loaded: boolean): Promise<ModuleStatus> {
  return loaded ? ctx.control.load(name) : ctx.control.unload(name);
}

/**
 * Answer 202 now, then unload or disable the web server once the answer
 * is done ('close' comes after 'finish', or when the client went away
 * first: the request was made, so it is carried out either way); the
 * outcome of that call can only be logged.
 */
function answerThenStop(
  ctx: RouteContext,
  req: WebRequest,
  res: ServerResponse,
  current: ModuleStatus,
  command: 'unload' | 'disable',
): void {
  res.once('close', () => {
    ctx.control[command](current.name).catch((err: unknown) =>
      ctx.log.warning(`${command} ${current.name} failed: ${errorMessage(err)}`),
    );
  });
  sendJson(
    res,
    202,
    { result: 0, message: SELF_STOPPING, module: moduleJson(baseUrl(req), current) },
    { Connection: 'close' },
  );
}

async function runCommand(
  ctx: RouteContext,
  command: Command,
  name: string,
): Promise<{ result: 0 | 2; message: string; status: ModuleStatus }> {
  const control = ctx.control;
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
