/**
 * `config-agent web add-user` and `config-agent web add-role`: a user with its password
 * as a pbkdf2-sha256 hash and a role, and privileges appended to a role,
 * each decided under the writer's lock on the content being edited.
 */
import type { SettingsEdit } from '../core/control.js';
import { AgentError } from '../errors.js';
import { readSettingsView } from '../settings/store/edit-tree.js';
import { parsePrivilegeList, ROOT_USER } from '../settings/model/privileges.js';
import { hashPassword } from '../web/password-hash.js';
import { err, out } from './args.js';
import { HELP } from './web-options.js';
import { edit, ROLES, strongPassword, usage, USERS, type WebTarget } from './web-edit.js';

export async function addUser(
  target: WebTarget,
  user: string | undefined,
  pw: string | undefined,
  role: string | undefined,
): Promise<number> {
  if (user === undefined || user.trim() === '') return usage(`--user is required\n\n${HELP['add-user']}`);
  const name = user.trim();
  if (name === ROOT_USER)
    return usage('root is the built-in user; set its password with config-agent web password --set');
  if (/[/[\]\r\n]/.test(name)) return usage(`user name "${name}" must not contain /, [, ] or line breaks`);
  if (pw === '') return usage('--password must not be empty (leave it out to get a generated one)');
  if (role !== undefined && role.trim() === '')
    return usage('--role must not be empty (leave it out to keep the role, or get client)');
  const generated = strongPassword();
  const hashed = await hashPassword(pw ?? generated);
  const section = `${USERS}/${name}`;
  // Decided under the writer's lock, on the content being edited, as NSClient++ reads the row first.
  let outcome = { keptPassword: false, wrotePassword: false, role: '', defaultedRole: false, addedClientRole: false };
  const written = await edit(target, (view) => {
    if (view.get(USERS, name) !== undefined)
      throw new AgentError('AGENT_ERR_USAGE', [
        `user ${name} is written as a one-liner in [${USERS}]; change that line, or move the user to [${section}]`,
      ]);
    const hasPassword = (view.get(section, 'password') ?? '') !== '';
    const existingRole = (view.get(section, 'role') ?? '').trim();
    const keepPassword = pw === undefined && hasPassword;
    const chosenRole = role?.trim() ?? (existingRole !== '' ? existingRole : CLIENT_ROLE);
    const edits: SettingsEdit[] = [];
    if (!keepPassword) edits.push({ op: 'set', section, key: 'password', value: hashed });
    if (chosenRole !== existingRole) edits.push({ op: 'set', section, key: 'role', value: chosenRole });
    const defaulted = role === undefined && existingRole === '';
    const roleDefined = view.get(ROLES, CLIENT_ROLE) !== undefined;
    if (chosenRole === CLIENT_ROLE && !roleDefined)
      edits.push({ op: 'set', section: ROLES, key: CLIENT_ROLE, value: CLIENT_GRANTS });
    outcome = {
      keptPassword: keepPassword,
      wrotePassword: !keepPassword,
      role: chosenRole,
      defaultedRole: defaulted,
      addedClientRole: chosenRole === CLIENT_ROLE && !roleDefined,
    };
    return edits;
  });
  out(
    `user ${name} written to [${section}]${written} (${outcome.keptPassword ? 'password kept' : 'password stored as a pbkdf2-sha256 hash'}, role ${outcome.role}).`,
  );
  if (outcome.wrotePassword && pw === undefined) out(`password for user ${name}: ${generated}`);
  if (outcome.defaultedRole)
    err(
      `warning: no --role given: user ${name} gets the role ${CLIENT_ROLE} (read-only: ${CLIENT_GRANTS}), as NSClient++ does`,
    );
  if (outcome.addedClientRole)
    err(`note: role ${CLIENT_ROLE} was not defined; added to [${ROLES}] with NSClient++'s client privileges`);
  const after = await readSettingsView(target.file);
  if (outcome.role !== 'legacy' && outcome.role !== CLIENT_ROLE && after.get(ROLES, outcome.role) === undefined)
    err(`warning: role ${outcome.role} is not defined in [${ROLES}]; add it with config-agent web add-role`);
  return 0;
}

export async function addRole(target: WebTarget, role: string | undefined, grant: string | undefined): Promise<number> {
  if (role === undefined || role.trim() === '') return usage(`--role is required\n\n${HELP['add-role']}`);
  if (grant === undefined) return usage(`--grant is required\n\n${HELP['add-role']}`);
  const name = role.trim();
  const adding = parsePrivilegeList(grant);
  if (adding.length === 0) return usage('--grant names no privilege');
  const bad = adding.find((p) => !/^[A-Za-z0-9_\-.*]+$/.test(p));
  if (bad !== undefined) return usage(`privilege "${bad}" may hold only letters, digits, _, -, . and *`);
  // Read-modify-write under the writer's lock: parallel add-role runs never drop each other's grants.
  let merged: string[] = [];
  const written = await edit(target, (view) => {
    const current = parsePrivilegeList(view.get(ROLES, name) ?? '');
    merged = [...current, ...adding.filter((p) => !current.includes(p))];
    return [{ op: 'set', section: ROLES, key: name, value: merged.join(', ') }];
  });
  out(`role ${name}: ${merged.join(', ')}${written}`);
  if (name === 'legacy') err('note: the built-in role legacy always holds *');
  return 0;
}

/** The role add-user gives a user without one, and its privileges when the file lacks it (NSClient++'s client role in our privilege names). */
const CLIENT_ROLE = 'client';
const CLIENT_GRANTS = 'public, info.get, queries.list, queries.get, queries.execute, aliases.list, modules.list';
