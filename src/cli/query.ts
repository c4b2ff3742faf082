/**
 * `config-agent query <command> [args…]`: start the modules the settings enable
 * (except listeners), run one query, print it in the Nagios form and exit
 * with its status (0-3), as a Nagios plugin does.
 */
import { parseArgs, settingsPath, out, err, takeSettingsOption } from './args.js';
import { HELP_OPTION, SETTINGS_OPTION, helpText, type CliOption } from './options.js';
import { loadSettingsFile } from '../settings/store/load-file.js';
import { toNagios } from '../core/result.js';
import { sink } from '../log.js';
import { formatProblem } from './format-problem.js';
import { startLocalCore } from './local-core.js';
import { queryIndex } from '../checks/helpers/index-check.js';

/** Options of `config-agent query` itself, before the query's name (--settings may stand anywhere). */
export const QUERY_OPTIONS: readonly CliOption[] = [
  {
    name: 'list',
    help: 'list every query with its module and whether it is enabled (its module is enabled in the settings and started), instead of running one',
  },
  SETTINGS_OPTION,
  HELP_OPTION,
];

export const QUERY_HELP = helpText(
  `Usage: config-agent query [--settings FILE] <command> [arguments…]
       config-agent query --list [--settings FILE]

Runs one query with the modules that the settings enable (listeners such as
WEBServer are not started) and prints the result in the Nagios form
    message|'label'=value[unit];warn;crit;min;max
Exit status: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.
Example: config-agent query check_ok "all good"

--list prints one line per query: its name, its module, and enabled or
disabled (disabled: enable the module in [/modules] to answer it).`,
  QUERY_OPTIONS,
);

export async function queryCommand(argv: string[]): Promise<number> {
  // `--settings FILE` may stand anywhere; other options of `config-agent query` come
  // before the command, and everything after the command belongs to the query.
  const taken = takeSettingsOption(argv);
  const head: string[] = taken.settings !== undefined ? ['--settings', taken.settings] : [];
  let i = 0;
  for (let a = taken.rest[i]; a?.startsWith('--'); a = taken.rest[++i]) head.push(a);
  const rest = taken.rest.slice(i);
  const { options } = parseArgs(head, QUERY_OPTIONS);
  if (options.list === true && !options.help)
    return rest.length > 0 ? usageError(`--list takes no query ("${rest[0]}")`) : listQueries(settingsPath(options));
  if (options.help || rest.length === 0) {
    (options.help ? out : err)(QUERY_HELP);
    return options.help ? 0 : 2;
  }
  const [command, ...args] = rest as [string, ...string[]];
  sink.consoleLevel = process.env.AGENT_LOG_LEVEL === undefined ? 'error' : sink.consoleLevel;
  const loaded = await loadSettingsFile(settingsPath(options));
  if (!loaded.ok) {
    for (const p of loaded.problems) err(formatProblem(p));
    out(`UNKNOWN: settings ${settingsPath(options)} are invalid`);
    return 3;
  }
  const local = await startLocalCore(loaded.snapshot);
  try {
    const result = await local.core.query(command, args);
    out(toNagios(result));
    return result.result;
  } finally {
    await local.stop();
  }
}

/** `config-agent query --list`: every query with its module and whether it is enabled, aligned; exit 0 (3 on invalid settings). */
async function listQueries(file: string): Promise<number> {
  sink.consoleLevel = process.env.AGENT_LOG_LEVEL === undefined ? 'error' : sink.consoleLevel;
  const loaded = await loadSettingsFile(file);
  if (!loaded.ok) {
    for (const p of loaded.problems) err(formatProblem(p));
    err(`config-agent query --list: settings ${file} are invalid`);
    return 3;
  }
  const local = await startLocalCore(loaded.snapshot);
  try {
    const rows = queryIndex(local.core.listQueries());
    const width = (pick: (r: (typeof rows)[number]) => string): number => Math.max(...rows.map((r) => pick(r).length));
    const [n, m] = [width((r) => r.name), width((r) => r.module)];
    for (const r of rows) out(`${r.name.padEnd(n)}  ${r.module.padEnd(m)}  ${r.enabled ? 'enabled' : 'disabled'}`);
    return 0;
  } finally {
    await local.stop();
  }
}

function usageError(text: string): number {
  err(`config-agent query: ${text}\n\n${QUERY_HELP}`);
  return 2;
}
