/**
 * The web roles of the settings: those [/settings/web/roles] defines, the
 * legacy role, and the seeded roles the file leaves out; with a warning for
 * a role holding the legacy grant or a root-equivalent one, and for a user
 * whose role no one defines.
 */
import { problem, type SettingsProblem } from './problem.js';
import { parsePrivilegeList, LEGACY_GRANT, LEGACY_ROLE, SEEDED_ROLES } from './privileges.js';
import { rootEquivalentGrants } from './edit-privileges.js';
import type { Origin, ResolvedObject } from './snapshot.js';
import { valueText } from './value-text.js';

/** Every role by name with its privileges; the warnings about the roles go to `problems`. */
export function resolveRoles(
  sections: Readonly<Record<string, Readonly<Record<string, unknown>> | undefined>>,
  origins: Readonly<Record<string, Readonly<Record<string, Origin>> | undefined>>,
  abs: string,
  problems: SettingsProblem[],
): Map<string, readonly string[]> {
  const roles = new Map<string, readonly string[]>([[LEGACY_ROLE, ['*']]]);
  for (const [role, value] of Object.entries(sections['/settings/web/roles'] ?? {})) {
    const privileges = parsePrivilegeList(String(value));
    roles.set(role, privileges);
    const o = origins['/settings/web/roles']?.[role];
    const at = {
      file: o?.file ?? abs,
      line: o?.line ?? 0,
      col: o?.col ?? 0,
      section: '/settings/web/roles',
      key: role,
    };
    if (privileges.includes(LEGACY_GRANT)) problems.push(problem('AGENT_WARN_ROLE_LEGACY', [role], at));
    const rootLike = rootEquivalentGrants(privileges);
    if (rootLike.length > 0) problems.push(problem('AGENT_WARN_ROLE_ROOT_EQUIVALENT', [role, rootLike.join(', ')], at));
  }
  const defined = new Set([...roles.keys()].map((r) => r.toLowerCase()));
  for (const [role, privileges] of SEEDED_ROLES) if (!defined.has(role)) roles.set(role, privileges);
  return roles;
}

/** AGENT_WARN_ROLE_UNKNOWN for each user (not a template) whose role is not in `roles`. */
export function unknownRoleWarnings(
  users: ReadonlyMap<string, ResolvedObject>,
  roles: ReadonlyMap<string, readonly string[]>,
  abs: string,
): SettingsProblem[] {
  const warnings: SettingsProblem[] = [];
  for (const u of users.values()) {
    const role = valueText(u.values.role);
    if (!u.isTemplate && role !== '' && !roles.has(role)) {
      const o = u.origins.role;
      warnings.push(
        problem('AGENT_WARN_ROLE_UNKNOWN', [u.name, role], {
          file: o?.file ?? abs,
          line: o?.line ?? 0,
          col: o?.col ?? 0,
          section: u.path,
          key: 'role',
        }),
      );
    }
  }
  return warnings;
}
