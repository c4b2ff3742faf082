/**
 * Settings that validate but leave a listener that nobody can use, as
 * warnings at the line to change:
 * - AGENT_WARN_TLS_NO_SHARED_CIPHER: RemoteServer with TLS on, no
 *   certificate and an `allowed ciphers` that keeps the anonymous suites
 *   out: without a certificate only anonymous suites can be agreed, so
 *   every client (check_nrpe included) fails its handshake;
 * - AGENT_WARN_UI_SIGN_IN: WEBServer enabled and a role given to web users
 *   without the privilege `public`, which the UI's first request needs:
 *   those users can use the API and are refused by the UI.
 */
import type { Origin, ResolvedObject } from './snapshot.js';
import { sectionWithFallbacks } from './module-view.js';
import { problem, type SettingsProblem } from './problem.js';
import { hasPrivilege, parsePrivilegeList, SEEDED_ROLES } from './privileges.js';
import { allowsAnonymous } from './warnings.js';

interface ReachInput {
  file: string;
  sections: Record<string, Record<string, unknown>>;
  origins: Record<string, Record<string, Origin>>;
  modules: Partial<Record<string, boolean>>;
  users: Map<string, ResolvedObject>;
}

const NRPE = '/settings/remote/server';
const ROLES = '/settings/web/roles';

export function reachWarnings(input: ReachInput): SettingsProblem[] {
  return [...nrpeCipherWarnings(input), ...signInWarnings(input)];
}

function nrpeCipherWarnings(input: ReachInput): SettingsProblem[] {
  if (!input.modules.RemoteServer) return [];
  const s = sectionWithFallbacks(input, NRPE);
  const certificate = typeof s.certificate === 'string' ? s.certificate : '';
  const ciphers = typeof s['allowed ciphers'] === 'string' ? s['allowed ciphers'] : '';
  if (s['use ssl'] !== true || certificate !== '' || ciphers === '' || allowsAnonymous(ciphers)) return [];
  const o = input.origins[NRPE]?.['allowed ciphers'] ?? input.origins['/settings/default']?.['allowed ciphers'];
  return [
    problem('AGENT_WARN_TLS_NO_SHARED_CIPHER', ['RemoteServer', ciphers], {
      file: o?.file ?? input.file,
      line: o?.line ?? 0,
      col: o?.col ?? 0,
      section: o?.section ?? NRPE,
      key: 'allowed ciphers',
    }),
  ];
}

function signInWarnings(input: ReachInput): SettingsProblem[] {
  if (!input.modules.WEBServer) return [];
  // Role names match without regard to case, as the web server matches them.
  const defined = new Map(
    Object.entries(input.sections[ROLES] ?? {}).map(([name, value]) => [name.toLowerCase(), { name, value }]),
  );
  const byRole = new Map<string, string[]>();
  for (const u of input.users.values()) {
    const role = u.values.role;
    if (u.isTemplate || typeof role !== 'string' || role === '') continue;
    const own = defined.get(role.toLowerCase());
    const grants =
      typeof own?.value === 'string' ? parsePrivilegeList(own.value) : SEEDED_ROLES.get(role.toLowerCase());
    if (grants === undefined || hasPrivilege(grants, 'public')) continue; // an unknown role has a warning of its own
    const name = own?.name ?? role;
    byRole.set(name, [...(byRole.get(name) ?? []), u.name]);
  }
  return [...byRole].map(([role, users]) => {
    // At the role's definition (the line to change), else at the first user's role line.
    const o = input.origins[ROLES]?.[role] ?? input.users.get(users[0] ?? '')?.origins.role;
    return problem('AGENT_WARN_UI_SIGN_IN', [role, users.join(', ')], {
      file: o?.file ?? input.file,
      line: o?.line ?? 0,
      col: o?.col ?? 0,
      section: o?.section ?? ROLES,
      key: role,
    });
  });
}
