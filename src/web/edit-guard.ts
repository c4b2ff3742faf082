/**
 * The checks of a settings edit over the API beyond its route's privilege
 * (`settings.put`, `settings.delete`): an edit that can change who may do
 * what or what runs needs its own privilege (settings/model/edit-privileges.ts),
 * and removing a role the agent seeds (`full`, `client`) is refused, since
 * the seeded definition would come back with rights the file took away.
 */
import { AgentError } from '../errors.js';
import type { SettingsEdit } from '../core/control.js';
import { editClasses, editPrivilege, refersToSecret } from '../settings/model/edit-privileges.js';
import { hasPrivilege, SEEDED_ROLES } from '../settings/model/privileges.js';
import type { WebRequest } from './respond.js';

/** One thing an edit writes or removes: a key (with its new value) or a whole section. */
export interface EditTarget {
  section: string;
  key?: string;
  value?: string;
}

/** Throws AGENT_ERR_SETTINGS_PRIVILEGE (403) for the first target the principal may not edit. */
export function requireEditPrivileges(
  req: WebRequest,
  op: 'put' | 'delete',
  targets: readonly (EditTarget | SettingsEdit)[],
): void {
  const granted = req.principal?.privileges ?? [];
  for (const t of targets) {
    const key = 'key' in t ? t.key : undefined;
    const value = 'value' in t ? t.value : undefined;
    for (const cls of editClasses(t.section, key, value)) {
      const needed = editPrivilege(op, cls);
      if (hasPrivilege(granted, needed)) continue;
      const what =
        cls === 'secrets' && value !== undefined && refersToSecret(value)
          ? `a \${file:} or \${env:} reference in [${t.section}] ${key ?? ''}`.trimEnd()
          : key !== undefined
            ? `[${t.section}] ${key}`
            : `[${t.section}]`;
      throw new AgentError('AGENT_ERR_SETTINGS_PRIVILEGE', [
        `${op === 'put' ? 'writing' : 'removing'} ${what}`,
        needed,
      ]);
    }
  }
}

const ROLES = '/settings/web/roles';

/** Throws AGENT_ERR_SETTINGS_SEEDED_ROLE when an edit removes a seeded role's definition from the file. */
export function refuseSeededRoleRemoval(edits: readonly SettingsEdit[], definedRoles: () => readonly string[]): void {
  for (const e of edits) {
    if (e.section.toLowerCase() !== ROLES) continue;
    const names = e.op === 'remove-key' ? [e.key] : e.op === 'remove-section' ? definedRoles() : [];
    for (const name of names) {
      const seeded = SEEDED_ROLES.get(name.toLowerCase());
      if (seeded) throw new AgentError('AGENT_ERR_SETTINGS_SEEDED_ROLE', [name, seeded.join(', ')]);
    }
  }
}
