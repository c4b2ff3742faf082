/**
 * Access control of every API request, in this order (DESIGN.md, Web server):
 * 1. allowed hosts: the peer address against `allowed hosts` of
 *    [/settings/WEB/server], else [/settings/default] (fail closed);
 * 2. the per-address rate limit on failed authentications;
 * 3. HTTP Basic credentials: user `root` with the web password (the file's,
 *    else the one generated at start), or a user of [/settings/web/users/...]
 *    (templates cannot sign in);
 * 4. the route's privilege through the user's role ([/settings/web/roles]);
 *    `root` holds every privilege.
 * Every failure is the same 403 body. Credential checks cost one pbkdf2 run
 * whatever the outcome (password-hash.ts); successful checks are cached by
 * the exact header and the settings hash, so a client with keep-alive pays
 * pbkdf2 once per credential and settings version. Failures are never cached.
 * Settings are read per request through `getSnapshot()`, so password, user,
 * role and allowed-hosts edits apply to the next request.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Middleware, NextHandler } from 'polka';
import { AgentError } from '../errors.js';
import type { Logger } from '../log.js';
import { isAllowed, parseAllowedHosts, type HostMatcher } from '../protocols/allowed-hosts.js';
import { hasPrivilege, ROOT_USER } from '../settings/privileges.js';
import { withFallback, type Snapshot } from '../settings/snapshot.js';
import { readBasicCredentials } from './basic-auth.js';
import type { WebMetrics } from './metrics.js';
import { verifyPassword } from './password-hash.js';
import { AuthRateLimiter } from './rate-limit.js';
import { envelope } from './on-error.js';
import type { Principal, WebRequest } from './respond.js';

export const WEB_SECTION = '/settings/WEB/server';
const CACHE_LIMIT = 1000;
const ALL: readonly string[] = ['*'];

export interface AccessOptions {
  getSnapshot(): Snapshot;
  /** Root's password when the settings have none (generated at start). */
  generatedPassword?(): string | undefined;
  metrics: WebMetrics;
  log: Logger;
  now?: () => number;
}

/** What a route requires: one privilege, or any one of several (the handler then checks the exact one). */
export type Requirement = string | readonly string[];

interface Derived {
  snapshot: Snapshot;
  matchers: readonly HostMatcher[];
  /** Verdicts by peer address for these settings (bounded). */
  hostVerdicts: Map<string, boolean>;
}

export class AccessControl {
  private derived: Derived | undefined;
  private readonly limiter: AuthRateLimiter;
  private readonly cache = new Map<string, Principal>();
  private cacheVersion = '';
  private readonly forbiddenBody = Buffer.from(JSON.stringify(envelope(new AgentError('AGENT_ERR_HTTP_FORBIDDEN'))));

  constructor(private readonly opts: AccessOptions) {
    this.limiter = new AuthRateLimiter({ maxFailures: 0, blockSeconds: 60 }, opts.now);
  }

  /** Middleware: allowed hosts, rate limit and credentials; sets `req.principal`. */
  readonly authenticate: Middleware<WebRequest> = async (req, res, next) => {
    if (await this.admit(req, res)) return next();
  };

  /** Middleware for a route: records its label for metrics, authenticates, checks the requirement. */
  guard(route: string, requirement: Requirement): Middleware<WebRequest> {
    return async (req, res, next: NextHandler) => {
      req.routeLabel = route;
      if (!(await this.admit(req, res))) return;
      if (!this.allows(req, requirement)) {
        this.opts.metrics.authFailure('privilege');
        this.opts.log.warning(`403 ${req.method} ${req.path}: user ${req.principal?.user} lacks ${[requirement].flat().join(' or ')}`);
        this.forbid(res);
        return;
      }
      return next();
    };
  }

  /** True when the authenticated principal holds `requirement` (any of a list). */
  allows(req: WebRequest, requirement: Requirement): boolean {
    const p = req.principal;
    if (!p) return false;
    const list = typeof requirement === 'string' ? [requirement] : requirement;
    return list.some((r) => hasPrivilege(p.privileges, r));
  }

  /** Answer the one 403 body. */
  forbid(res: ServerResponse): void {
    res.writeHead(403, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(this.forbiddenBody.length), 'Cache-Control': 'no-store' });
    res.end(this.forbiddenBody);
  }

  blockedAddresses(): number {
    return this.limiter.blockedCount();
  }

  /** Steps 1 to 3; answers 403 itself and returns false on failure. */
  private async admit(req: WebRequest, res: ServerResponse): Promise<boolean> {
    if (req.principal) return true;
    const d = this.current();
    const version = this.cacheVersion;
    const address = req.socket.remoteAddress ?? '';
    if (!this.hostAllowed(d, address)) return this.refuse(res, 'host', `403 ${req.method} ${req.path}: ${address} is not in allowed hosts`);
    if (this.limiter.isBlocked(address)) return this.refuse(res, 'blocked', undefined);
    const header = req.headers.authorization;
    const key = header === undefined ? '' : createHash('sha256').update(header).digest('base64');
    const cached = header === undefined ? undefined : this.cache.get(key);
    if (cached) {
      req.principal = cached;
      return true;
    }
    const creds = readBasicCredentials(header);
    if (creds.kind === 'none') return this.refuse(res, 'missing', undefined);
    if (creds.kind === 'invalid') return this.fail(res, address, creds.reason, `403 ${req.method} ${req.path} from ${address}: ${creds.reason} Authorization header`);
    const principal = await this.check(d, creds.user, creds.password);
    if (!principal) return this.fail(res, address, 'credentials', `403 ${req.method} ${req.path} from ${address}: bad credentials for user ${JSON.stringify(creds.user)}`);
    this.limiter.succeed(address);
    if (this.cacheVersion === version) {
      if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(key, principal);
    }
    req.principal = principal;
    return true;
  }

  /** Verify a user's password; one pbkdf2 run whatever the outcome. */
  private async check(d: Derived, user: string, password: string): Promise<Principal | undefined> {
    if (user === ROOT_USER) {
      const stored = rootPassword(d.snapshot, this.opts.generatedPassword?.());
      return (await verifyPassword(password, stored)) ? { user, privileges: ALL } : undefined;
    }
    const obj = d.snapshot.users.get(user);
    const usable = obj !== undefined && !obj.isTemplate;
    const stored = usable ? String(obj.values.password ?? '') : undefined;
    if (!(await verifyPassword(password, stored)) || !usable) return undefined;
    const role = String(obj.values.role ?? '');
    return { user, privileges: d.snapshot.roles.get(role) ?? [] };
  }

  /** Settings-derived state, rebuilt when the snapshot changes; clears the credential cache. */
  private current(): Derived {
    const snapshot = this.opts.getSnapshot();
    if (this.derived?.snapshot === snapshot) {
      this.syncCache(snapshot);
      return this.derived;
    }
    const hosts = String(withFallback(snapshot, WEB_SECTION, 'allowed hosts') ?? '');
    const parsed = parseAllowedHosts(hosts);
    for (const p of parsed.problems) this.opts.log.warning(p);
    const web = snapshot.sections[WEB_SECTION] ?? {};
    this.limiter.configure({
      maxFailures: Number(web['auth rate limit max failures'] ?? 10),
      blockSeconds: Number(web['auth rate limit block seconds'] ?? 60),
    });
    this.derived = { snapshot, matchers: parsed.matchers, hostVerdicts: new Map() };
    this.syncCache(snapshot);
    return this.derived;
  }

  private hostAllowed(d: Derived, address: string): boolean {
    let verdict = d.hostVerdicts.get(address);
    if (verdict === undefined) {
      verdict = isAllowed(d.matchers, address);
      if (d.hostVerdicts.size >= CACHE_LIMIT) d.hostVerdicts.clear();
      d.hostVerdicts.set(address, verdict);
    }
    return verdict;
  }

  /** The cache holds principals of one settings version (hash + generated password) only. */
  private syncCache(snapshot: Snapshot): void {
    const version = `${snapshot.hash}\n${this.opts.generatedPassword?.() ?? ''}`;
    if (version !== this.cacheVersion) {
      this.cache.clear();
      this.cacheVersion = version;
    }
  }

  private refuse(res: ServerResponse, reason: string, message: string | undefined): false {
    this.opts.metrics.authFailure(reason);
    if (message !== undefined) this.opts.log.warning(message);
    this.forbid(res);
    return false;
  }

  private fail(res: ServerResponse, address: string, reason: string, message: string): false {
    if (this.limiter.fail(address)) {
      const web = this.derived?.snapshot.sections[WEB_SECTION] ?? {};
      this.opts.log.warning(new AgentError('AGENT_WARN_WEB_AUTH_BLOCKED', [address, web['auth rate limit block seconds'] ?? 60, web['auth rate limit max failures'] ?? 10]).message);
    }
    return this.refuse(res, reason, message);
  }
}

/** Root's stored password: the settings' web password, else the generated one. */
export function rootPassword(snapshot: Snapshot, generated: string | undefined): string {
  const configured = String(withFallback(snapshot, WEB_SECTION, 'password') ?? '');
  return configured !== '' ? configured : (generated ?? '');
}
