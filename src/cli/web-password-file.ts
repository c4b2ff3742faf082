/**
 * Where `config-agent web install` and `config-agent web password --set` keep root's password unless
 * `--write-password`: in the state folder as `web-password` (the file WEBServer already keeps
 * a generated password in, modules/web-server/stored-password.ts; mode 0600, outside the
 * repository: `${base-path}/state` is git-ignored, systemd's StateDirectory is /var/lib), with
 * the settings reading it through `${file:}`. The settings file, meant for git, then holds no
 * secret (docs/settings.md, on secrets).
 */
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { AgentError } from '../errors.js';
import { readStoredPassword, storedPassword, writeStoredPassword } from '../modules/web-server/stored-password.js';
import { readSettingsView, type SettingsView } from '../settings/store/edit-tree.js';
import { resolveVariables } from '../settings/model/variables.js';
import { gitMayCommit } from '../settings/store/password-in-git.js';
import { err, out } from './args.js';

/** The password file written and the value the settings get instead of the password. */
export interface PasswordFile {
  password: string;
  file: string;
  /** `${file:PATH}`: relative to the settings file's folder when the file is below it, else absolute. */
  reference: string;
  /** The file held another password (or none) before. */
  changed: boolean;
}

/**
 * Write `password` (or, when undefined, reuse the password the agent generated and kept there,
 * else generate one) into `${state}/web-password` of the settings file `settingsFile`.
 * Throws AgentError AGENT_ERR_PASSWORD_FILE when the folder cannot be written (nothing is written then).
 */
export async function keepPasswordInStateFolder(
  settingsFile: string,
  password: string | undefined,
): Promise<PasswordFile> {
  const view = await readSettingsView(settingsFile);
  const state = stateFolder(settingsFile, view);
  const before = password === undefined ? undefined : readStoredPassword(state);
  const kept =
    password === undefined || before === password ? storedPassword(state) : writeStoredPassword(state, password);
  if (kept.file === undefined)
    throw new AgentError('AGENT_ERR_PASSWORD_FILE', [`${state}/web-password`, kept.problem ?? 'not writable']);
  return {
    password: kept.password,
    file: kept.file,
    reference: fileReference(settingsFile, kept.file, view),
    changed: password !== undefined && before !== password,
  };
}

/** What the commands print after keeping a password in its file: where it is, and the other ways. */
export function tellPasswordFile(kept: PasswordFile): void {
  out(
    `the password is kept in ${kept.file} (mode 0600, not in the settings file); [/settings/WEB/server] password = ${kept.reference}`,
  );
  if (gitMayCommit(kept.file))
    err(
      `note: ${kept.file} lies in a git work tree and git does not ignore it: add it to .gitignore, or set [/paths] state to a folder outside the repository`,
    );
  out(
    '(to read it from the environment instead, set password = ${env:AGENT_WEB_PASSWORD} and export AGENT_WEB_PASSWORD to the agent; --write-password writes it into the settings file)',
  );
}

/**
 * When a running agent uses the password just set: with the next request when a settings file
 * changed (the agent watches those), at its next reload when only the password file changed
 * (`edited` is edit()'s " (nothing to change in …)"): the agent does not watch `${file:}` files.
 */
export function appliedWhen(kept: PasswordFile | undefined, edited: string): string {
  if (kept === undefined || !kept.changed || !edited.startsWith(' (nothing to change'))
    return 'a running agent applies it to the next request.';
  return `the settings already read ${kept.reference}: a running agent uses the new password after its next reload (SIGHUP, systemctl reload config-agent, or a save of the settings file).`;
}

/** The state folder of the settings file (`[/paths] state`, else systemd's or `${base-path}/state`). */
function stateFolder(settingsFile: string, view: SettingsView): string {
  const overrides: Record<string, string> = {};
  for (const [key, value] of view.keys('/paths')) overrides[key.toLowerCase()] = value;
  return resolveVariables(resolve(settingsFile), overrides).vars.state;
}

/**
 * `${file:PATH}` for `file`. PATH is relative (portable across clones) only when `file` is below
 * the settings file's folder and the file includes no other: with includes, the key may be
 * written in a file of another folder, where a relative PATH would point elsewhere.
 */
function fileReference(settingsFile: string, file: string, view: SettingsView): string {
  if (file.includes('}')) throw new AgentError('AGENT_ERR_PASSWORD_FILE', [file, 'a ${file:} path cannot hold }']);
  const includes = view.sections().some((s) => s.path.toLowerCase() === '/includes');
  const rel = relative(dirname(resolve(settingsFile)), file);
  const below = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  return `\${file:${below && !includes ? rel : file}}`;
}
