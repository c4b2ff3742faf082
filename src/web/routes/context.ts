/**
 * What every route file receives: the core, the access layer, the metrics,
 * the body limit, and `route()`, the only way to register an API route. It
 * puts the access guard in front of the handler and records the route with
 * its privilege, so that nothing is reachable without one and tests can
 * enumerate the table.
 */
import type { Polka } from 'polka';
import type { ServerResponse } from 'node:http';
import type { Core } from '../../core/core.js';
import type { AgentControl } from '../../core/control.js';
import type { Logger } from '../../log.js';
import type { WebSettings } from '../access.js';
import type { AccessControl } from '../access.js';
import type { Requirement } from '../requirement.js';
import type { WebMetrics } from '../metrics.js';
import type { WebRequest } from '../respond.js';

export type Method = 'GET' | 'PUT' | 'DELETE' | 'POST';
export type Handler = (req: WebRequest, res: ServerResponse) => Promise<void> | void;

export interface RouteInfo {
  method: Method;
  path: string;
  /**
   * `public`, a privilege, or several separated by `|` (the body or path
   * picks one; `<R>` stands for a path parameter), or `none` for the few
   * routes that need no authentication (NSClient++'s `/core/isalive`).
   */
  privilege: string;
}

export interface RouteContext {
  core: Core;
  /** Control of the running agent: modules, reconciler status, settings edits, logs. */
  control: AgentControl;
  access: AccessControl;
  metrics: WebMetrics;
  log: Logger;
  /** WEBServer's settings view in force (settings/model/module-view.ts). */
  getSnapshot: () => WebSettings;
  /** `text` with absolute paths shown relative to the settings folder or as bare file names (hide-paths.ts). */
  hidePaths: (text: string) => string;
  /** Largest accepted request body in bytes. */
  maxBodySize: () => number;
  /** Register a guarded route (a requirement given as a function is shown in the table by its `label`: see labelled()). */
  route(method: Method, path: string, requirement: Requirement, handler: Handler): void;
  /** Register a route that needs no authentication (recorded with privilege `none`). */
  openRoute(method: Method, path: string, handler: Handler): void;
}

export function createRouteTable(
  app: Polka<WebRequest>,
  access: AccessControl,
): { routes: RouteInfo[]; route: RouteContext['route']; openRoute: RouteContext['openRoute'] } {
  const routes: RouteInfo[] = [];
  const route: RouteContext['route'] = (method, path, requirement, handler) => {
    // One Polka handler per route (guard and handler together): one step of the request loop, and no promise when
    // the connection's login is remembered and the handler is synchronous.
    app.add(method, path, access.guard(path, requirement, handler));
    const privilege =
      typeof requirement === 'string'
        ? requirement
        : typeof requirement === 'function'
          ? ((requirement as { label?: string }).label ?? 'dynamic')
          : requirement.join('|');
    routes.push({ method, path, privilege });
  };
  const openRoute: RouteContext['openRoute'] = (method, path, handler) => {
    const fn = async (req: WebRequest, res: ServerResponse): Promise<void> => {
      req.routeLabel = path;
      await handler(req, res);
    };
    app.add(method, path, fn);
    routes.push({ method, path, privilege: 'none' });
  };
  return { routes, route, openRoute };
}

/** A requirement computed from the request, named for the route table (`scripts.list|scripts.lists.<R>`). */
export function labelled(label: string, of: (req: WebRequest) => readonly string[]): Requirement {
  return Object.assign(of, { label });
}
