/** What a route requires of the principal (access.ts checks it), and the mark of a guarded route handler. */
import type { WebRequest } from './respond.js';

/**
 * What a route requires: one privilege, or any one of several (the handler
 * then checks the exact one), or a function of the request giving the
 * privileges any one of which admits it (for privileges that name a path
 * parameter, such as NSClient++'s `scripts.lists.<runtime>`).
 */
export type Requirement = string | readonly string[] | ((req: WebRequest) => readonly string[]);

/** Every handler `guard()` made, so a test can tell guarded routes from open ones. */
const GUARDS = new WeakSet<object>();

/** Marks `handler` as made by `AccessControl.guard`. */
export function markGuarded<H extends object>(handler: H): H {
  GUARDS.add(handler);
  return handler;
}

/** True when `handler` is a route handler made by `AccessControl.guard`. */
export function isGuarded(handler: unknown): boolean {
  return typeof handler === 'function' && GUARDS.has(handler);
}

/** The privileges any one of which meets `requirement` for this request. */
export function requiredPrivileges(req: WebRequest, requirement: Requirement): readonly string[] {
  if (typeof requirement === 'string') return [requirement];
  return typeof requirement === 'function' ? requirement(req) : requirement;
}
