/**
 * Privilege matching for web users and roles. A privilege is a
 * dot-separated string. A granted rule matches a required privilege when
 * they are equal, when the rule is `*`, or when the rule ends in `*` and the
 * required privilege starts with what precedes the `*` (so `modules.*`
 * covers `modules.load` and `modules.list`, and `mod*` covers `modules`).
 * Rules are trimmed; empty rules grant nothing.
 */

export function ruleMatches(rule: string, required: string): boolean {
  const r = rule.trim();
  if (r === '') return false;
  if (r === '*') return true;
  if (r.endsWith('*')) return required.startsWith(r.slice(0, -1));
  return r === required;
}

export function hasPrivilege(granted: readonly string[], required: string): boolean {
  return granted.some((rule) => ruleMatches(rule, required));
}

/** Split a role's value (`a.b, c.*`) into its privileges. */
export function parsePrivilegeList(value: string): string[] {
  return value
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

/** The name of the built-in user with every privilege. */
export const ROOT_USER = 'root';
/** The built-in role that holds `*`. */
export const LEGACY_ROLE = 'legacy';
/** The privilege of NSClient++'s legacy routes (/query, /query.pb, /core/reload, /log/...). */
export const LEGACY_GRANT = 'legacy';

/**
 * Roles present unless the settings define a role of that name (an
 * operator's own role always wins, whichever layer writes it): NSClient++'s
 * `full` (everything) and `client` (read info, run queries), and ours,
 * `monitoring` (a poller: run queries) and `viewer` (read everything but
 * secrets: modules, logs, settings, metrics). Seeded here rather than
 * written in the packaged settings file, so a pulled file can define them.
 */
export const SEEDED_ROLES: ReadonlyMap<string, readonly string[]> = new Map([
  ['full', ['*']],
  [
    'client',
    [
      'public',
      'info.get',
      'info.get.version',
      'queries.list',
      'queries.get',
      'queries.execute',
      'aliases.list',
      'login.get',
      'modules.list',
    ],
  ],
  ['monitoring', ['public', 'info.get', 'queries.list', 'queries.get', 'queries.execute']],
  [
    'viewer',
    [
      'public',
      'info.get',
      'modules.list',
      'modules.get',
      'queries.list',
      'queries.get',
      'logs.list',
      'settings.get',
      'metrics.list',
    ],
  ],
]);
/** NSClient++'s default web user; here an alias of root unless the file defines a user of that name. */
export const NSCLIENT_ADMIN = 'admin';
