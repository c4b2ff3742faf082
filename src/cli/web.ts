/**
 * `agent web install|password|add-user|add-role`: configure the web server
 * by editing the settings file through the minimal-edit writer (comments,
 * order and every other line stay; the write is atomic), so a running agent
 * picks the change up without a restart.
 *
 * Exit status: 0 done, 1 failure (unreadable or unwritable file, invalid
 * settings for --display, an edit conflict that retrying could not resolve),
 * 2 usage error or a settings file that does not exist. Every subcommand
 * takes `--settings FILE` (default $AGENT_SETTINGS, else
 * settings/agent.ini), `--create` (make the file when it does not exist;
 * without it a mistyped path is refused, never created) and `--help`.
 * Values that depend on the file (an existing password, a role's list) are
 * read under the writer's lock, so parallel runs never lose each other's
 * changes.
 *
 * A settings file with `[/includes]` is edited as a tree (settings/edit-tree.ts):
 * each key goes to the file that holds the value in force (a shared base
 * when only the base writes it), a new key to the given file; the output
 * names every file written.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import type { SettingsEdit } from '../core/control.js';
import { AgentError, errorMessage } from '../errors.js';
import { parseAllowedHosts } from '../protocols/allowed-hosts.js';
import { certificateProblem, pairProblem, privateKeyProblem } from '../protocols/pem-check.js';
import { changedFiles, editSettings, readSettingsView, type FileEditResult, type TreeEdits } from '../settings/edit-tree.js';
import { loadSettingsFile } from '../settings/load.js';
import { parsePrivilegeList, ROOT_USER } from '../settings/privileges.js';
import { sectionWithFallbacks } from '../settings/module-view.js';
import { hashPassword } from '../web/password-hash.js';
import { err, out, parseArgs, settingsExitCode, settingsPath } from './args.js';
import { HELP, WEB_OPTIONS } from './web-options.js';
import { specOf } from './options.js';
import { formatProblem } from './format-problem.js';

const WEB = '/settings/WEB/server';
const ROLES = '/settings/web/roles';
const USERS = '/settings/web/users';

/** Entry point of `agent web` (argv after `web`). */
export async function runWebCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === 'help') {
    (sub === undefined ? err : out)(HELP.web);
    return sub === undefined ? 2 : 0;
  }
  const table = WEB_OPTIONS[sub];
  if (!table) return usage(`unknown web subcommand "${sub}"\n\n${HELP.web}`);
  let file = '';
  try {
    const { options, positionals } = parseArgs(rest, specOf(table));
    if (options.help) {
      out(HELP[sub]);
      return 0;
    }
    if (positionals.length > 0) return usage(`unexpected argument "${positionals[0]}"\n\n${HELP[sub]}`);
    file = settingsPath(options);
    create = options.create === true;
    const editing = sub !== 'password' || options.set !== undefined;
    if (editing && !create && !existsSync(file)) return usage(notFound(sub, file));
    const opt = (name: string): string | undefined => (typeof options[name] === 'string' ? (options[name]) : undefined);
    const given = sub === 'password' ? 'set' : 'password';
    if (options['password-stdin'] === true) {
      if (opt(given) !== undefined) return usage(`give --${given} or --password-stdin, not both`);
      const fromStdin = await readPasswordFromStdin();
      if (fromStdin === '') return usage('--password-stdin read an empty password from standard input');
      options[given] = fromStdin;
    }
    switch (sub) {
      case 'install':
        return await install(file, opt('password'), opt('port'), opt('allowed-hosts'), { https: options.https === true, certificate: opt('certificate'), certificateKey: opt('certificate-key'), allowWeak: options['allow-weak-password'] === true });
      case 'password':
        return await password(file, opt('set'), options.display === true);
      case 'add-user':
        return await addUser(file, opt('user'), opt('password'), opt('role'));
      default:
        return await addRole(file, opt('role'), opt('grant'));
    }
  } catch (e) {
    if (e instanceof AgentError && e.code === 'AGENT_ERR_USAGE') return usage(`${e.message}\n\n${HELP[sub]}`);
    if (e instanceof AgentError && e.code === 'AGENT_ERR_VALUE_INVALID') return usage(e.message);
    if (e instanceof AgentError && e.code === 'AGENT_ERR_SETTINGS_NOT_FOUND') return usage(notFound(sub, file));
    if (e instanceof AgentError && e.code === 'AGENT_ERR_SETTINGS_CONFLICT') {
      err(`agent web ${sub}: settings file ${file} kept changing while this command wrote it (another program is saving it); nothing was written, run the command again`);
      return 1;
    }
    err(`agent web ${sub}: ${errorMessage(e)}`);
    return 1;
  }
}

// ---------------------------------------------------------------- subcommands

/** NSClient++'s install switches: --https, the certificate pair, and the weak-password escape. */
interface InstallTls {
  https: boolean;
  certificate: string | undefined;
  certificateKey: string | undefined;
  allowWeak: boolean;
}

async function install(file: string, pw: string | undefined, port: string | undefined, hosts: string | undefined, tls: InstallTls): Promise<number> {
  if (pw === '') return usage('--password must not be empty (leave it out to get a generated one)');
  if (pw !== undefined && [...pw].length < MIN_PASSWORD && !tls.allowWeak) return usage(`--password is shorter than ${MIN_PASSWORD} characters; choose a longer one (or leave it out to get a generated one), or give --allow-weak-password`);
  const edits: SettingsEdit[] = [{ op: 'set', section: '/modules', key: 'WEBServer', value: 'enabled' }];
  const pem = await certificateEdits(tls.certificate, tls.certificateKey);
  if (typeof pem === 'string') return usage(pem);
  edits.push(...pem);
  if (port !== undefined) {
    const m = /^(\d{1,5})s?$/.exec(port.trim());
    if (!m || Number(m[1]) < 1 || Number(m[1]) > 65535) return usage(`--port "${port}" is not a port number (1-65535, optionally followed by s)`);
    edits.push({ op: 'set', section: WEB, key: 'port', value: `${Number(m[1])}s` });
  }
  if (hosts !== undefined) {
    const parsed = parseAllowedHosts(hosts);
    if (parsed.problems.length > 0) return usage(parsed.problems.join('\n'));
    if (parsed.matchers.length === 0) return usage('--allowed-hosts is empty: nobody could connect');
    edits.push({ op: 'set', section: WEB, key: 'allowed hosts', value: hosts.split(',').map((h) => h.trim()).filter(Boolean).join(', ') });
  }
  // Without --password an existing password stays (re-running install must not lock anyone out).
  // Decided under the writer's lock, on the content being edited.
  let chosen: string | undefined;
  const written = await edit(
    file,
    (view) => {
      const existing = view.get(WEB, 'password') || view.get('/settings/default', 'password') || '';
      chosen = pw ?? (existing !== '' ? undefined : (chosen ?? strongPassword()));
      const all = chosen !== undefined ? [...edits, { op: 'set' as const, section: WEB, key: 'password', value: chosen }] : [...edits];
      // --https on a port written without its s: the s is what means TLS here.
      const current = view.get(WEB, 'port');
      if (tls.https && port === undefined && current !== undefined && /^\d+$/.test(current.trim())) all.push({ op: 'set', section: WEB, key: 'port', value: `${current.trim()}s` });
      return all;
    },
  );
  out(`WEBServer enabled${written}${port !== undefined ? ` on port ${Number(/^\d+/.exec(port.trim())?.[0])} (TLS)` : ''}.`);
  if (pw !== undefined) out('web password for user root set.');
  else if (chosen !== undefined) out(`web password for user root: ${chosen}`);
  else out('the existing web password stays (agent web password --display shows it).');
  out('A running agent applies the change without a restart.');
  return 0;
}

async function password(file: string, set: string | undefined, display: boolean): Promise<number> {
  if ((set === undefined) === !display) return usage(`give exactly one of --set P and --display\n\n${HELP.password}`);
  if (set !== undefined) {
    if (set === '') return usage('--set needs a non-empty password (an empty one makes the agent generate one at each start)');
    const written = await edit(file, [{ op: 'set', section: WEB, key: 'password', value: set }]);
    out(`web password for user root set${written}; a running agent applies it to the next request.`);
    return 0;
  }
  const loaded = await loadSettingsFile(file);
  if (!loaded.ok) {
    for (const p of loaded.problems) err(formatProblem(p));
    const code = settingsExitCode(loaded.problems);
    if (code === 1) err(`agent web password: ${file} is invalid (${loaded.problems.length} problems)`);
    return code;
  }
  const value = String(sectionWithFallbacks(loaded.snapshot, WEB).password ?? '');
  if (value === '') out('No password set: the agent generates one at each start and prints it.');
  else out(`web password for user root: ${value}`);
  return 0;
}

async function addUser(file: string, user: string | undefined, pw: string | undefined, role: string | undefined): Promise<number> {
  if (user === undefined || user.trim() === '') return usage(`--user is required\n\n${HELP['add-user']}`);
  const name = user.trim();
  if (name === ROOT_USER) return usage('root is the built-in user; set its password with agent web password --set');
  if (/[/[\]\r\n]/.test(name)) return usage(`user name "${name}" must not contain /, [, ] or line breaks`);
  if (pw === '') return usage('--password must not be empty (leave it out to get a generated one)');
  if (role !== undefined && role.trim() === '') return usage('--role must not be empty (leave it out to keep the role, or get client)');
  const generated = strongPassword();
  const hashed = await hashPassword(pw ?? generated);
  const section = `${USERS}/${name}`;
  // Decided under the writer's lock, on the content being edited, as NSClient++ reads the row first.
  let outcome = { keptPassword: false, wrotePassword: false, role: '', defaultedRole: false, addedClientRole: false };
  const written = await edit(
    file,
    (view) => {
      if (view.get(USERS, name) !== undefined) throw new AgentError('AGENT_ERR_USAGE', [`user ${name} is written as a one-liner in [${USERS}]; change that line, or move the user to [${section}]`]);
      const hasPassword = (view.get(section, 'password') ?? '') !== '';
      const existingRole = (view.get(section, 'role') ?? '').trim();
      const keepPassword = pw === undefined && hasPassword;
      const chosenRole = role?.trim() ?? (existingRole !== '' ? existingRole : CLIENT_ROLE);
      const edits: SettingsEdit[] = [];
      if (!keepPassword) edits.push({ op: 'set', section, key: 'password', value: hashed });
      if (chosenRole !== existingRole) edits.push({ op: 'set', section, key: 'role', value: chosenRole });
      const defaulted = role === undefined && existingRole === '';
      const roleDefined = view.get(ROLES, CLIENT_ROLE) !== undefined;
      if (chosenRole === CLIENT_ROLE && !roleDefined) edits.push({ op: 'set', section: ROLES, key: CLIENT_ROLE, value: CLIENT_GRANTS });
      outcome = { keptPassword: keepPassword, wrotePassword: !keepPassword, role: chosenRole, defaultedRole: defaulted, addedClientRole: chosenRole === CLIENT_ROLE && !roleDefined };
      return edits;
    },
  );
  out(`user ${name} written to [${section}]${written} (${outcome.keptPassword ? 'password kept' : 'password stored as a pbkdf2-sha256 hash'}, role ${outcome.role}).`);
  if (outcome.wrotePassword && pw === undefined) out(`password for user ${name}: ${generated}`);
  if (outcome.defaultedRole) err(`warning: no --role given: user ${name} gets the role ${CLIENT_ROLE} (read-only: ${CLIENT_GRANTS}), as NSClient++ does`);
  if (outcome.addedClientRole) err(`note: role ${CLIENT_ROLE} was not defined; added to [${ROLES}] with NSClient++'s client privileges`);
  const after = await readSettingsView(file);
  if (outcome.role !== 'legacy' && outcome.role !== CLIENT_ROLE && after.get(ROLES, outcome.role) === undefined) err(`warning: role ${outcome.role} is not defined in [${ROLES}]; add it with agent web add-role`);
  return 0;
}

async function addRole(file: string, role: string | undefined, grant: string | undefined): Promise<number> {
  if (role === undefined || role.trim() === '') return usage(`--role is required\n\n${HELP['add-role']}`);
  if (grant === undefined) return usage(`--grant is required\n\n${HELP['add-role']}`);
  const name = role.trim();
  const adding = parsePrivilegeList(grant);
  if (adding.length === 0) return usage('--grant names no privilege');
  const bad = adding.find((p) => !/^[A-Za-z0-9_\-.*]+$/.test(p));
  if (bad !== undefined) return usage(`privilege "${bad}" may hold only letters, digits, _, -, . and *`);
  // Read-modify-write under the writer's lock: parallel add-role runs never drop each other's grants.
  let merged: string[] = [];
  const written = await edit(file, (view) => {
    const current = parsePrivilegeList(view.get(ROLES, name) ?? '');
    merged = [...current, ...adding.filter((p) => !current.includes(p))];
    return [{ op: 'set', section: ROLES, key: name, value: merged.join(', ') }];
  });
  out(`role ${name}: ${merged.join(', ')}${written}`);
  if (name === 'legacy') err('note: the built-in role legacy always holds *');
  return 0;
}

// ---------------------------------------------------------------- helpers

/** NSClient++'s minimum for the install password, unless --allow-weak-password. */
const MIN_PASSWORD = 8;

/** The role add-user gives a user without one, and its privileges when the file lacks it (NSClient++'s client role in our privilege names). */
const CLIENT_ROLE = 'client';
const CLIENT_GRANTS = 'public, info.get, queries.list, queries.get, queries.execute, aliases.list, modules.list';

/** Edits for --certificate / --certificate-key after checking the files, or why they are refused. */
async function certificateEdits(certificate: string | undefined, key: string | undefined): Promise<SettingsEdit[] | string> {
  if (key !== undefined && certificate === undefined) return '--certificate-key needs --certificate';
  if (certificate === undefined) return [];
  const read = async (f: string): Promise<Buffer | string> => readFile(f).catch((e: unknown) => `cannot read ${f}: ${errorMessage(e)}`);
  const cert = await read(certificate);
  if (typeof cert === 'string') return `--certificate ${cert}`;
  const certProblem = certificateProblem(cert);
  if (certProblem) return `--certificate ${certificate}: ${certProblem}`;
  const edits: SettingsEdit[] = [{ op: 'set', section: WEB, key: 'certificate', value: resolve(certificate) }];
  if (key === undefined) return edits;
  const keyText = await read(key);
  if (typeof keyText === 'string') return `--certificate-key ${keyText}`;
  const keyProblem = privateKeyProblem(keyText) ?? pairProblem(cert, keyText);
  if (keyProblem) return `--certificate-key ${key}: ${keyProblem}`;
  edits.push({ op: 'set', section: WEB, key: 'certificate key', value: resolve(key) });
  return edits;
}

/** Set per run from --create (one command per process). */
let create = false;

function notFound(sub: string, file: string): string {
  return `agent web ${sub}: settings file ${file} does not exist (check the path, or pass --create to make a new file)`;
}

function usage(text: string): number {
  err(text);
  return 2;
}

/**
 * The password piped to standard input (`--password-stdin`): everything up
 * to the first line break (at most 64 KiB), so `printf %s "$PW" |` and
 * `echo "$PW" |` both work; the value never appears in argv.
 */
async function readPasswordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > 65_536 || chunk.includes(10)) break;
  }
  const text = Buffer.concat(chunks).toString('utf8');
  const end = text.search(/\r?\n/);
  return end < 0 ? text : text.slice(0, end);
}

/** 24 characters from 18 random bytes (base64url): about 144 bits. */
function strongPassword(): string {
  return randomBytes(18).toString('base64url');
}

/**
 * Apply the edits to the tree of `file` (each key in the file that holds it,
 * a new key in `file`; see settings/edit-tree.ts) and say where they went:
 * " in FILE" or " in FILE and FILE2" (paths relative to the working folder
 * when below it), " (nothing to change in FILE)" when no file changed.
 */
async function edit(file: string, edits: TreeEdits): Promise<string> {
  const results = await editSettings(file, edits, { create });
  return whereWritten(results, file);
}

function whereWritten(results: readonly FileEditResult[], file: string): string {
  const changed = changedFiles(results).map(shown);
  if (changed.length === 0) return ` (nothing to change in ${shown(resolve(file))})`;
  return ` in ${changed.join(' and ')}`;
}

/** A path as the user reads it: relative to the working folder when it is below it. */
function shown(abs: string): string {
  const rel = relative(process.cwd(), abs);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs;
}
