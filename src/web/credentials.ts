/**
 * The credentials of a web request and how one is checked against the
 * settings (access.ts runs them under the failed-login limit and the
 * success cache). A request carries HTTP Basic credentials, or else
 * NSClient++'s `password` header, which is root's password; `admin` is
 * root unless the file defines a user `admin` (NSClient++'s default user);
 * templates cannot sign in. A check costs one pbkdf2 run whatever the
 * outcome (password-hash.ts).
 */
import { ROOT_USER } from '../settings/model/privileges.js';
import { readBasicCredentials, readPasswordHeader } from './basic-auth.js';
import { isRootLogin, rootPassword, type WebSettings } from './login-fingerprint.js';
import { verifyPassword } from './password-hash.js';
import type { Principal, WebRequest } from './respond.js';
import { valueText } from '../settings/model/value-text.js';

/** A credential to check: its cache key (the raw credential), the login it names, who that is (for logs), how to verify it. */
export interface Credential {
  cacheKey: string;
  login: string;
  who: string;
  verify(): Promise<Principal | undefined>;
}

export type ReadCredential =
  { kind: 'none' } | { kind: 'invalid'; reason: string; header: string } | ({ kind: 'check' } & Credential);

/** Verifies `password` for the login `user`: the principal, or undefined when wrong. */
export type VerifyLogin = (user: string, password: string) => Promise<Principal | undefined>;

const ALL: readonly string[] = ['*'];

/**
 * The credential a request carries. Every kind of credential (HTTP Basic
 * today; a new kind adds a branch here) becomes a `Credential` with its
 * own cache key, and then goes through the same `verifyGuess` of
 * access.ts: success cache, shared checks of identical guesses,
 * failed-login limit.
 */
export function readCredential(req: WebRequest, verify: VerifyLogin): ReadCredential {
  const header = req.headers.authorization;
  if (header === undefined && req.headers.password !== undefined) {
    // NSClient++'s `password` header (check_nscp_api): root's password, under the same limit and cap.
    const pw = readPasswordHeader(req.headers.password);
    if (pw.kind === 'none') return { kind: 'none' };
    if (pw.kind === 'invalid') return { kind: 'invalid', reason: pw.reason, header: 'password' };
    return {
      kind: 'check',
      cacheKey: `password\n${pw.password}`,
      login: ROOT_USER,
      who: `the password header (user "${ROOT_USER}")`,
      verify: () => verify(ROOT_USER, pw.password),
    };
  }
  const creds = readBasicCredentials(header);
  if (creds.kind === 'none') return { kind: 'none' };
  if (creds.kind === 'invalid') return { kind: 'invalid', reason: creds.reason, header: 'Authorization' };
  return {
    kind: 'check',
    cacheKey: `basic\n${header}`,
    login: creds.user,
    who: `user ${JSON.stringify(creds.user)}`,
    verify: () => verify(creds.user, creds.password),
  };
}

/** Verify a user's password against `settings` (root's: the file's, else `generatedPassword`); one pbkdf2 run whatever the outcome. */
export async function verifyLogin(
  settings: WebSettings,
  user: string,
  password: string,
  generatedPassword: string | undefined,
): Promise<Principal | undefined> {
  // NSClient++'s default user `admin` is root here unless the file defines its own `admin`.
  if (isRootLogin(settings, user)) {
    const stored = rootPassword(settings, generatedPassword);
    return (await verifyPassword(password, stored)) ? { user: ROOT_USER, privileges: ALL } : undefined;
  }
  const obj = settings.users.get(user);
  const usable = obj !== undefined && !obj.isTemplate;
  const stored = usable ? valueText(obj.values.password) : undefined;
  if (!(await verifyPassword(password, stored)) || !usable) return undefined;
  const role = valueText(obj.values.role);
  return { user, privileges: settings.roles.get(role) ?? [] };
}
