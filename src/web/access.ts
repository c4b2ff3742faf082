/**
 * Access control of every API request, in this order (DESIGN.md, Web server):
 * 1. allowed hosts: the peer address against `allowed hosts` of
 *    [/settings/WEB/server], else [/settings/default] (fail closed);
 * 2. the per-address limit on failed authentications, counted in flight
 *    (core/login-limit.ts, the agent's one limit, shared with check_nt): a guess takes its slot first;
 * 3. HTTP Basic credentials (read and checked in credentials.ts): user `root` with the web password (the file's,
 *    else the one generated at start), or a user of [/settings/web/users/...]
 *    (templates cannot sign in); without Basic, NSClient++'s `password`
 *    header is root's password; `admin` is root unless the file defines a
 *    user `admin` (NSClient++'s default user);
 * 4. the route's privilege through the user's role ([/settings/web/roles]);
 *    `root` holds every privilege.
 * Every failure is the same 403 body. Credential checks cost one pbkdf2 run
 * whatever the outcome (password-hash.ts), and a 403 for a missing privilege
 * after a remembered success waits what its check took (WebRequest.uncheckedCost),
 * so a right password answers no faster than a wrong one; successful checks are cached by
 * the exact header, each valid while what its login depends on is unchanged
 * (login-fingerprint.ts: root's password, or the user's hash and role), so a
 * client pays pbkdf2 once per credential, and an edit of another user costs
 * it nothing. Failures are never cached. On a keep-alive connection, a
 * request repeating the header that passed on it, its login unchanged,
 * skips parsing and hashing the header (login-memo.ts; the limiter must
 * still admit it as a guess).
 * Settings are read per request through `getSnapshot()`, so password, user,
 * role and allowed-hosts edits apply to the next request.
 */
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Middleware } from 'polka';
import { AgentError } from '../errors.js';
import { escapeForLog, type Logger } from '../log.js';
import { isAllowed, parseAllowedHosts, type HostMatcher } from '../formats/allowed-hosts.js';
import { hasPrivilege } from '../settings/model/privileges.js';
import { fallbackSource } from '../settings/model/module-view.js';
import { readCredential, verifyLogin, type Credential } from './credentials.js';
import type { WebMetrics } from './metrics.js';
import { AuthRateLimiter, limitsOf } from '../core/login-limit.js';
import { WarningThrottle } from '../log-throttle.js';
import { loginFingerprint, rootPassword, WEB_SECTION, type WebSettings } from './login-fingerprint.js';
import { confirmedFor, rememberedLogin, rememberLogin, stillValid, type LoginMemo } from './login-memo.js';
import { GuessChecker, type GuessOutcome } from './guess-check.js';
import { markGuarded, requiredPrivileges, type Requirement } from './requirement.js';

export { rootPassword, WEB_SECTION, type WebSettings, type Credential };
import { envelope } from './on-error.js';
import type { WebRequest } from './respond.js';

const CACHE_LIMIT = 1000;
/** This channel, in the shared limit's log lines. */
const WEB = 'the web server';

export interface AccessOptions {
  getSnapshot: () => WebSettings;
  /** Root's password when the settings have none (generated at start). */
  generatedPassword?: () => string | undefined;
  metrics: WebMetrics;
  log: Logger;
  now?: () => number;
  /** The agent's one failed-login limit (Core.logins), shared with every password check; else one of its own. */
  logins?: AuthRateLimiter;
}

interface Derived {
  snapshot: WebSettings;
  matchers: readonly HostMatcher[];
  /** Where the allowed hosts come from (settings/model/snapshot.ts fallbackSource), for refusal log lines. */
  hostsFrom: string;
  /** Verdicts by peer address for these settings (bounded). */
  hostVerdicts: Map<string, boolean>;
}

export class AccessControl {
  private derived: Derived | undefined;
  private readonly limiter: AuthRateLimiter;
  private readonly guesses: GuessChecker;
  /** Per-event warnings (bad credentials, refused hosts, missing privileges): a line a minute per subject. */
  private readonly notices = new WarningThrottle();
  private readonly forbiddenBody = Buffer.from(JSON.stringify(envelope(new AgentError('AGENT_ERR_HTTP_FORBIDDEN'))));

  constructor(private readonly opts: AccessOptions) {
    this.limiter = opts.logins ?? new AuthRateLimiter(() => limitsOf(opts.getSnapshot().sections), opts.now);
    this.guesses = new GuessChecker(this.limiter);
  }

  /** Middleware: allowed hosts, rate limit and credentials; sets `req.principal`. */
  readonly authenticate: Middleware<WebRequest> = async (req, res, next) => {
    if (await this.admit(req, res)) return next();
  };

  /**
   * A route's handler behind its guard: records the route's label for
   * metrics, authenticates, checks the requirement, then runs `handler`.
   * Synchronous up to the handler (no promise of its own) when the
   * connection's remembered login admits the request; a throw or rejection
   * of the handler reaches the caller (Polka's onError).
   */
  guard(
    route: string,
    requirement: Requirement,
    handler: (req: WebRequest, res: ServerResponse) => void | Promise<void>,
  ): (req: WebRequest, res: ServerResponse) => void | Promise<void> {
    const permitted = (req: WebRequest, res: ServerResponse): void | Promise<void> => {
      if (!this.allows(req, requirement)) {
        this.opts.metrics.authFailure('privilege');
        this.notices.warn(
          this.opts.log,
          'privilege',
          req.principal?.user ?? '',
          `403 ${escapeForLog(req.method)} ${escapeForLog(req.path)}: user ${escapeForLog(req.principal?.user)} lacks ${requiredPrivileges(req, requirement).join(' or ')}`,
        );
        // A remembered success skipped the check a wrong guess pays: a 403 at once would say the password was right.
        const owed = req.uncheckedCost ?? 0;
        if (owed <= 0) return this.forbid(res);
        return sleep(owed).then(() => this.forbid(res));
      }
      return handler(req, res);
    };
    const guarded = (req: WebRequest, res: ServerResponse): void | Promise<void> => {
      req.routeLabel = route;
      const admitted = this.admit(req, res);
      if (admitted === true) return permitted(req, res);
      if (admitted === false) return;
      return admitted.then((ok) => (ok ? permitted(req, res) : undefined));
    };
    return markGuarded(guarded);
  }

  /** Step 1 alone, for what needs no login (the static UI, /core/isalive): false after answering 403. */
  hostGate(req: WebRequest, res: ServerResponse): boolean {
    const address = req.socket.remoteAddress ?? '';
    const d = this.current();
    return (
      this.hostAllowed(d, address) ||
      this.refuse(
        res,
        'host',
        address,
        `403 ${escapeForLog(req.method)} ${escapeForLog(req.path)}: ${escapeForLog(address)} is not in allowed hosts ${d.hostsFrom}`,
      )
    );
  }

  /** True when the authenticated principal holds `requirement` (any of a list). */
  allows(req: WebRequest, requirement: Requirement): boolean {
    const p = req.principal;
    if (!p) return false;
    if (typeof requirement === 'string') return hasPrivilege(p.privileges, requirement);
    return requiredPrivileges(req, requirement).some((r) => hasPrivilege(p.privileges, r));
  }

  /** Answer the one 403 body. */
  forbid(res: ServerResponse): void {
    res.writeHead(403, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(this.forbiddenBody.length),
      'Cache-Control': 'no-store',
    });
    res.end(this.forbiddenBody);
  }

  blockedAddresses(): number {
    return this.limiter.blockedCount();
  }

  /**
   * Steps 1 to 3; answers 403 itself and returns false on failure. A
   * boolean, not a promise, unless a credential has to be checked.
   */
  private admit(req: WebRequest, res: ServerResponse): boolean | Promise<boolean> {
    if (req.principal) return true;
    const d = this.current();
    const header = req.headers.authorization;
    const generated = this.opts.generatedPassword?.();
    // Keep-alive fast path (login-memo.ts): the header that passed on this connection is the principal the full
    // check found. Confirmed against these very settings, its address passed their allowed hosts too; the limiter
    // must still take the guess (the answer of taking a slot and freeing it at once, without the churn).
    const memo = rememberedLogin(req.socket, header);
    if (memo !== undefined && confirmedFor(memo, d, generated)) return this.admitRemembered(req, res, memo);
    const address = req.socket.remoteAddress ?? '';
    if (!this.hostAllowed(d, address))
      return this.refuse(
        res,
        'host',
        address,
        `403 ${escapeForLog(req.method)} ${escapeForLog(req.path)}: ${escapeForLog(address)} is not in allowed hosts ${d.hostsFrom}`,
      );
    if (this.limiter.isBlocked(address)) return this.blocked(res, address);
    // The settings changed since: still the same principal while its login is unchanged in them.
    if (memo !== undefined && stillValid(memo, d, d.snapshot, generated)) return this.admitRemembered(req, res, memo);
    return this.admitChecked(req, res, d, address, header);
  }

  private admitRemembered(req: WebRequest, res: ServerResponse, memo: LoginMemo): boolean {
    if (!this.limiter.wouldAdmit(memo.address)) return this.blocked(res, memo.address);
    req.principal = memo.principal;
    req.uncheckedCost = memo.cost;
    return true;
  }

  /** Step 3 with a credential to check (cache, shared check or pbkdf2); remembers a success on the connection. */
  private async admitChecked(
    req: WebRequest,
    res: ServerResponse,
    d: Derived,
    address: string,
    header: string | undefined,
  ): Promise<boolean> {
    const generated = this.opts.generatedPassword?.();
    const credential = readCredential(req, (user, password) => verifyLogin(d.snapshot, user, password, generated));
    if (credential.kind === 'none') return this.refuse(res, 'missing', address, undefined);
    if (credential.kind === 'invalid') {
      // A malformed header is a guess too: it takes a slot and fails at once.
      const attempt = this.limiter.acquire(address);
      if (!attempt) return this.blocked(res, address);
      return this.fail(
        res,
        address,
        attempt.fail(),
        credential.reason,
        `403 ${escapeForLog(req.method)} ${escapeForLog(req.path)} from ${escapeForLog(address)}: ${credential.reason} ${credential.header} header`,
      );
    }
    const outcome = await this.verifyGuess(address, credential);
    if (outcome.kind === 'blocked') return this.blocked(res, address);
    if (outcome.kind === 'failed')
      return this.fail(
        res,
        address,
        outcome.blockStarted,
        'credentials',
        `403 ${escapeForLog(req.method)} ${escapeForLog(req.path)} from ${escapeForLog(address)}: bad credentials for ${escapeForLog(credential.who)}`,
      );
    req.principal = outcome.principal;
    req.uncheckedCost = outcome.checked ? 0 : outcome.cost;
    if (header !== undefined && req.headers.authorization === header) {
      rememberLogin(req.socket, {
        header,
        login: credential.login,
        fingerprint: outcome.fingerprint,
        cost: outcome.cost,
        principal: outcome.principal,
        address,
        confirmed: d,
        generated,
      });
    }
    return true;
  }

  /** Check one credential from `address` under the failed-login limit (guess-check.ts has the contract). */
  verifyGuess(address: string, credential: Credential): Promise<GuessOutcome> {
    return this.guesses.check(address, credential, this.fingerprint(this.current(), credential.login));
  }

  /** Settings-derived state, rebuilt when the snapshot changes. */
  private current(): Derived {
    const snapshot = this.opts.getSnapshot();
    if (this.derived?.snapshot === snapshot) return this.derived;
    const web = snapshot.sections[WEB_SECTION];
    const parsed = parseAllowedHosts(web['allowed hosts']);
    const hostsFrom = fallbackSource(snapshot, WEB_SECTION, 'allowed hosts');
    for (const p of parsed.problems) this.opts.log.warning(`${hostsFrom}: ${p}`);
    this.derived = { snapshot, matchers: parsed.matchers, hostsFrom, hostVerdicts: new Map() };
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

  private fingerprint(d: Derived, login: string): string {
    return loginFingerprint(d.snapshot, login, this.opts.generatedPassword?.());
  }

  private refuse(res: ServerResponse, reason: string, subject: string, message: string | undefined): false {
    this.opts.metrics.authFailure(reason);
    if (message !== undefined) this.notices.warn(this.opts.log, reason, subject, message);
    this.forbid(res);
    return false;
  }

  /** A guess from a blocked address, answered unchecked (one line per address and minute: login-limit.ts). */
  private blocked(res: ServerResponse, address: string): false {
    this.limiter.noteBlocked(this.opts.log, address, false, WEB);
    return this.refuse(res, 'blocked', address, undefined);
  }

  private fail(res: ServerResponse, address: string, blockStarted: boolean, reason: string, message: string): false {
    if (blockStarted) this.limiter.noteBlocked(this.opts.log, address, true, WEB);
    // Bad credentials: one line a minute per address and user name (each name said, a flood at one counted).
    return this.refuse(res, reason, reason === 'credentials' ? `${address} ${message}` : address, message);
  }
}
