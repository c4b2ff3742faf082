/**
 * What the check of one login depends on, as a string: a cached success
 * for that login stays valid while its fingerprint is unchanged. Root (and
 * NSClient++'s `admin` while the file defines no `admin`) depends on root's
 * stored password; a user on its stored hash, template flag, role and the
 * role's privileges. So adding or changing one user keeps every other
 * login's cached success (the soak measured a full pbkdf2 run per request
 * when any user edit cleared them all).
 */
import { NSCLIENT_ADMIN, ROOT_USER } from '../settings/model/privileges.js';
import type { ModuleSettings } from '../settings/model/module-view.js';
import { valueText } from '../settings/model/value-text.js';

export const WEB_SECTION = '/settings/WEB/server';

/**
 * What the web server reads of the settings: WEBServer's view (its section
 * with `password`, `allowed hosts` and `timeout` filled from
 * [/settings/default] when left out, the web users and roles).
 */
export type WebSettings = ModuleSettings<typeof WEB_SECTION>;

/** True when `login` is root: root itself, or `admin` while the file has no user of that name. */
export function isRootLogin(settings: WebSettings, login: string): boolean {
  return login === ROOT_USER || (login === NSCLIENT_ADMIN && !settings.users.has(NSCLIENT_ADMIN));
}

/** Root's stored password: the settings' web password, else the generated one. */
export function rootPassword(settings: WebSettings, generated: string | undefined): string {
  const configured = settings.sections[WEB_SECTION].password;
  return configured !== '' ? configured : (generated ?? '');
}

export function loginFingerprint(settings: WebSettings, login: string, generated: string | undefined): string {
  if (isRootLogin(settings, login)) return `root\n${rootPassword(settings, generated)}`;
  const user = settings.users.get(login);
  if (user === undefined) return 'none';
  const role = user.values.role ?? null;
  return JSON.stringify([
    'user',
    user.isTemplate,
    user.values.password ?? null,
    role,
    settings.roles.get(valueText(role)) ?? null,
  ]);
}
