/**
 * `config-agent settings pull [--settings FILE]`: pull `[/settings/source] url`
 * (and the remote includes) once, now, from the shell, exactly as the agent's poll does
 * (settings/source/settings-source.ts): conditional request, size cap,
 * pinned hash, the whole tree validated with the pulled text in place.
 * A good pull is written to the cache in the state folder; a running agent
 * watches that file and applies it at once (no credentials, no web server
 * needed). Exit 0 pulled (changed or not), 1 failed or refused, 2 usage,
 * unreadable settings or no source.
 */
import { parseArgs, settingsPath, out, err, settingsExitCode } from './args.js';
import { HELP_OPTION, SETTINGS_OPTION, helpText, type CliOption } from './options.js';
import { formatMessage } from '../errors.js';
import { loadSettingsFile } from '../settings/store/load-file.js';
import { formatProblem } from './format-problem.js';
import { SettingsSource } from '../settings/source/settings-source.js';

export const PULL_OPTIONS: readonly CliOption[] = [SETTINGS_OPTION, HELP_OPTION];

export const PULL_HELP = helpText(
  `Usage: config-agent settings pull [--settings FILE]

Pulls the settings source ([/settings/source] url) and the remote files
[/includes] names of the settings file now
(default: $AGENT_SETTINGS, else settings/agent.ini), validates the whole
settings with the pulled text, and keeps a good pull in the state folder,
where a running agent picks it up at once. Run it as the agent's user (as
root, the cache is given to the owner of the state folder).
Exit: 0 pulled (changed or unchanged), 1 the pull failed or was refused,
2 usage, unreadable settings or no source.`,
  PULL_OPTIONS,
);

export async function pullCommand(argv: string[]): Promise<number> {
  const { options } = parseArgs(argv, PULL_OPTIONS);
  if (options.help) {
    out(PULL_HELP);
    return 0;
  }
  const file = settingsPath(options);
  const loaded = await loadSettingsFile(file);
  if (!loaded.ok) {
    for (const p of loaded.problems) err(formatProblem(p));
    return settingsExitCode(loaded.problems);
  }
  let snapshot = loaded.snapshot;
  const source = new SettingsSource({
    settings: () => snapshot,
    // The CLI's "reload": read the tree again with the new cache, as the agent will.
    reload: async () => {
      const again = await loadSettingsFile(file);
      if (again.ok) snapshot = again.snapshot;
      return { lastResult: again.ok ? 'ok' : 'invalid' };
    },
  });
  try {
    const status = await source.pull('config-agent settings pull');
    source.stop();
    if (status.lastError !== null) {
      err(`agent: ${status.lastError}`);
      return 1;
    }
    const what =
      status.pulls.changed > 0
        ? `${status.revision === null ? 'pulled' : `revision ${status.revision} pulled`} and cached; a running agent applies it now`
        : 'unchanged';
    out(`${status.url || 'remote includes'}: ${what}`);
    return 0;
  } catch {
    err(`agent: ${formatMessage('AGENT_ERR_SOURCE_NONE', [])} in ${file}`);
    return 2;
  }
}
