/**
 * `config-agent client <query> [options]`: runs one client query (remote_query,
 * remote_exec, remote_submit, remote_forward, agent_query, …) from the
 * shell, prints the result in the Nagios form and exits with its status, so
 * it can stand in for check_nrpe. Settings come from `--settings FILE`
 * (anywhere on the line), else AGENT_SETTINGS, else settings/agent.ini; a
 * missing file means the built-in defaults. Only the module that owns the
 * query is started.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { err, out, parseArgs, takeSettingsOption } from './args.js';
import { helpFormOf } from './help-forms.js';
import { HELP_OPTION, SETTINGS_OPTION, helpText, type CliOption } from './options.js';
import { formatProblem } from './format-problem.js';
import { startLocalCore } from './local-core.js';
import { loadSettingsText } from '../settings/model/load.js';
import { loadSettingsFile } from '../settings/store/load-file.js';
import { toNagios } from '../core/result.js';
import { sink } from '../log.js';

/**
 * Options of `config-agent client` itself, before the query's name (--settings may
 * stand anywhere). The query's own options, NSClient++'s client syntax, are
 * in protocols/client-options.ts and listed by `config-agent client <query> --help`.
 */
export const CLIENT_CLI_OPTIONS: readonly CliOption[] = [SETTINGS_OPTION, HELP_OPTION];

export const CLIENT_HELP = helpText(
  `Usage: config-agent client [--settings FILE] <query> [options]

Runs a client query and prints its result in the Nagios form; the exit
status is the check status (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN).
Queries: remote_query, remote_exec, remote_submit, remote_forward (NRPE),
         agent_query, agent_exec, agent_submit (agent protocol).
Example: config-agent client remote_query --host 127.0.0.1 --port 5666 --command check_load --arguments -w 5 -c 10
         config-agent client remote_query --help      (the options of a query; help-short, help-csv too)`,
  CLIENT_CLI_OPTIONS,
);

/** `config-agent client remote_query help-csv`: NSClient++'s bare help forms as the query's only argument. */
const QUERY_HELP_FORMS = { full: '--help', short: '--help-short', csv: '--help-csv' } as const;

/** Owning module by query-name prefix. */
const OWNERS: readonly [string, string][] = [
  ['remote_', 'RemoteClient'],
  ['agent_', 'AgentClient'],
];

export async function runClientCommand(allArgs: string[]): Promise<number> {
  const taken = takeSettingsOption(allArgs);
  const argv = taken.rest;
  const settingsFile: string | undefined = taken.settings;
  let i = 0;
  for (let a = argv[i]; a !== undefined && (a.startsWith('--') || a === '-h'); a = argv[i]) i++;
  // -h is check_nrpe's spelling of --help.
  const head = argv.slice(0, i).map((a) => (a === '-h' ? '--help' : a));
  const { options } = parseArgs(head, CLIENT_CLI_OPTIONS);
  if (options.help) {
    out(CLIENT_HELP);
    return 0;
  }
  const [query, ...given] = argv.slice(i);
  if (query === undefined || query === 'help') {
    (query ? out : err)(CLIENT_HELP);
    return query ? 0 : 2;
  }
  const form = given.length === 1 ? helpFormOf(given[0]) : undefined;
  const args = form ? [QUERY_HELP_FORMS[form]] : given;
  const owner = OWNERS.find(([prefix]) => query.toLowerCase().startsWith(prefix))?.[1];
  if (owner === undefined) {
    err(`config-agent client: "${query}" is not a client query\n${CLIENT_HELP}`);
    return 2;
  }
  sink.consoleLevel = process.env.AGENT_LOG_LEVEL === undefined ? 'error' : sink.consoleLevel;
  const file = resolve(settingsFile ?? process.env.AGENT_SETTINGS ?? 'settings/agent.ini');
  // A client query needs no settings file of its own: without one it runs on the defaults, like check_nrpe.
  const loaded = existsSync(file) ? await loadSettingsFile(file) : loadSettingsText('', file);
  if (!loaded.ok) {
    for (const p of loaded.problems) err(formatProblem(p));
    out(`UNKNOWN: settings ${file} are invalid`);
    return 3;
  }
  const local = await startLocalCore(loaded.snapshot, { modules: [owner] });
  try {
    if (local.failed.length > 0) {
      out(`UNKNOWN: ${local.failed.map((f) => `${f.name}: ${f.error}`).join('; ')}`);
      return 3;
    }
    const result = await local.core.query(query, args);
    out(toNagios(result));
    return result.result;
  } finally {
    await local.stop();
  }
}
