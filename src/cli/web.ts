/**
 * `config-agent web install|password|add-user|add-role`: configure the web server
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
 * A settings file with `[/includes]` is edited as a tree (settings/store/edit-tree.ts):
 * each key goes to the file that holds the value in force (a shared base
 * when only the base writes it), a new key to the given file; the output
 * names every file written. The subcommands live in web-install.ts,
 * web-users.ts and (password) here; what they share in web-edit.ts.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PASSWORD_FILE_NAME, readStoredPassword } from '../modules/web-server/stored-password.js';
import { AgentError, errorMessage } from '../errors.js';
import { loadSettingsFile } from '../settings/store/load-file.js';
import { sectionWithFallbacks } from '../settings/model/module-view.js';
import { err, out, parseArgs, settingsExitCode, settingsPath } from './args.js';
import { HELP, isWebSubcommand, WEB_OPTIONS } from './web-options.js';
import { formatProblem } from './format-problem.js';
import { edit, notFound, readPasswordFromStdin, usage, WEB, type WebTarget } from './web-edit.js';
import { install } from './web-install.js';
import { appliedWhen, keepPasswordInStateFolder, tellPasswordFile } from './web-password-file.js';
import { addRole, addUser } from './web-users.js';
import { valueText } from '../settings/model/value-text.js';

/** Entry point of `config-agent web` (argv after `web`). */
export async function runWebCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === 'help') {
    (sub === undefined ? err : out)(HELP.web);
    return sub === undefined ? 2 : 0;
  }
  if (!isWebSubcommand(sub)) return usage(`unknown web subcommand "${sub}"\n\n${HELP.web}`);
  const table = WEB_OPTIONS[sub];
  let file = '';
  try {
    const { options, positionals } = parseArgs(rest, table);
    if (options.help) {
      out(HELP[sub]);
      return 0;
    }
    if (positionals.length > 0) return usage(`unexpected argument "${positionals[0]}"\n\n${HELP[sub]}`);
    file = settingsPath(options);
    const target: WebTarget = { file, create: options.create === true };
    const editing = sub !== 'password' || options.set !== undefined;
    if (editing && !target.create && !existsSync(file)) return usage(notFound(sub, file));
    const opt = (name: string): string | undefined => (typeof options[name] === 'string' ? options[name] : undefined);
    const given = sub === 'password' ? 'set' : 'password';
    if (options['password-stdin'] === true) {
      if (opt(given) !== undefined) return usage(`give --${given} or --password-stdin, not both`);
      const fromStdin = await readPasswordFromStdin();
      if (fromStdin === '') return usage('--password-stdin read an empty password from standard input');
      options[given] = fromStdin;
    }
    switch (sub) {
      case 'install':
        return await install(target, opt('password'), opt('port'), opt('allowed-hosts'), {
          https: options.https === true,
          certificate: opt('certificate'),
          certificateKey: opt('certificate-key'),
          allowWeak: options['allow-weak-password'] === true,
          writePassword: options['write-password'] === true,
        });
      case 'password':
        return await password(target, opt('set'), options.display === true, options['write-password'] === true);
      case 'add-user':
        return await addUser(target, opt('user'), opt('password'), opt('role'));
      default:
        return await addRole(target, opt('role'), opt('grant'));
    }
  } catch (e) {
    if (e instanceof AgentError && e.code === 'AGENT_ERR_USAGE') return usage(`${e.message}\n\n${HELP[sub]}`);
    if (e instanceof AgentError && e.code === 'AGENT_ERR_VALUE_INVALID') return usage(e.message);
    if (e instanceof AgentError && e.code === 'AGENT_ERR_SETTINGS_NOT_FOUND') return usage(notFound(sub, file));
    if (e instanceof AgentError && e.code === 'AGENT_ERR_SETTINGS_CONFLICT') {
      err(
        `config-agent web ${sub}: settings file ${file} kept changing while this command wrote it (another program is saving it); nothing was written, run the command again`,
      );
      return 1;
    }
    err(`config-agent web ${sub}: ${errorMessage(e)}`);
    return 1;
  }
}

// ---------------------------------------------------------------- password

async function password(
  target: WebTarget,
  set: string | undefined,
  display: boolean,
  writePassword: boolean,
): Promise<number> {
  if ((set === undefined) === !display) return usage(`give exactly one of --set P and --display\n\n${HELP.password}`);
  if (set !== undefined) {
    if (set === '')
      return usage(
        '--set needs a non-empty password (with none in the settings the agent generates one at its first start and keeps it in ${state}/web-password)',
      );
    // Unless --write-password: the password in ${state}/web-password, the settings read it with ${file:}.
    const kept = writePassword ? undefined : await keepPasswordInStateFolder(target.file, set);
    const written = await edit(target, [{ op: 'set', section: WEB, key: 'password', value: kept?.reference ?? set }]);
    out(`web password for user root set${written}; ${appliedWhen(kept, written)}`);
    if (kept !== undefined) tellPasswordFile(kept);
    return 0;
  }
  if (writePassword) return usage('--write-password goes with --set');
  const file = target.file;
  const loaded = await loadSettingsFile(file);
  if (!loaded.ok) {
    for (const p of loaded.problems) err(formatProblem(p));
    const code = settingsExitCode(loaded.problems);
    if (code === 1) err(`config-agent web password: ${file} is invalid (${loaded.problems.length} problems)`);
    return code;
  }
  const value = valueText(sectionWithFallbacks(loaded.snapshot, WEB).password);
  if (value === '') {
    // The password the agent generated once and keeps (modules/web-server/stored-password.ts).
    const kept = join(loaded.snapshot.variables.state ?? '', PASSWORD_FILE_NAME);
    const stored = readStoredPassword(dirname(kept));
    if (stored !== undefined) out(`web password for user root (generated by the agent, kept in ${kept}): ${stored}`);
    else
      out(
        `No password set: the agent generates one at its first start and keeps it in ${kept} (mode 0600); it prints it then, unless it runs under systemd (the journal never gets it: read the file as root).`,
      );
  } else out(`web password for user root: ${value}`);
  return 0;
}
