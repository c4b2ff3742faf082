/**
 * One NRPE command ([/settings/external scripts/nrpe commands], written by
 * `settings import` from nrpe.cfg's `command[name]=line`) as a query, run
 * the way Debian's nrpe 4.1 runs it (NagiosEnterprises/nrpe, src/nrpe.c:
 * process_macros, my_system and the answer around it), so a host's checks
 * answer Nagios as nrpe answered:
 * - `$ARGn$` (n 1 to 16) becomes the n-th argument, or nothing when there
 *   is none (also with arguments off); `$$` is one `$`; any other `$text$`
 *   stays as written, and a `$` left open at the end of the line is closed
 *   (`$HOME` becomes `$HOME$`, as nrpe writes it);
 * - the line runs through `/bin/sh -c`, in its own process group;
 * - stdout alone is the answer (stderr is not read), less one final line
 *   break; empty stdout answers UNKNOWN `NRPE: Unable to read output`;
 * - exit codes 0 to 3 are the state, 255 and anything else UNKNOWN, with
 *   the text unchanged; death by a signal is CRITICAL;
 * - past the timeout ([/settings/external scripts] timeout, from
 *   command_timeout) the group is killed and the answer is UNKNOWN `NRPE:
 *   Command timed out after N seconds`.
 * Differences, on purpose: arguments are checked as for every script (the
 * refused characters include `$` and `"`), and when stdout is empty because
 * sudo could not run under no_new_privs the answer says how to let it run.
 */
import { splitOutput, statusFromExitCode, UNKNOWN, type QueryResult } from '../../core/result.js';
import { expandArguments, type ArgumentPolicy, CommandLineError } from '../../formats/script-command-line.js';
import { processHasNoNewPrivileges, sudoFix, sudoUses } from '../../formats/sudo-command.js';
import type { Limiter } from './limiter.js';
import type { RunOptions, RunOutcome } from './run-types.js';
import { runScriptArgv, type ScriptSettings } from './script-query.js';

/** nrpe's MAX_COMMAND_ARGUMENTS. */
const MAX_ARGUMENTS = 16;
const CRITICAL = 2 as const;

/** The command line with nrpe's macros replaced (process_macros of nrpe 4.1). */
export function nrpeMacros(line: string, args: readonly string[]): string {
  const parts = line.split('$');
  let out = parts[0] ?? '';
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i] ?? '';
    if (i % 2 === 0) out += part;
    else if (part.startsWith('ARG')) {
      // atoi: the leading digits, 0 when there are none.
      const n = Number(/^\s*[+-]?\d+/.exec(part.slice(3))?.[0] ?? 0);
      if (n >= 1 && n <= MAX_ARGUMENTS) out += args[n - 1] ?? '';
    } else out += part === '' ? '$' : `$${part}$`;
  }
  return out;
}

export async function runNrpeCommand(
  name: string,
  line: string,
  args: readonly string[],
  settings: ScriptSettings,
  limiter: Limiter,
  signal: AbortSignal | undefined,
  run: (options: RunOptions) => Promise<RunOutcome>,
): Promise<QueryResult> {
  const unknown = (message: string): QueryResult => ({ command: name, result: UNKNOWN, message, perf: [] });
  try {
    // Only the checks of the arguments (allowed at all, refused characters): the words are nrpe's macros'.
    expandArguments([], args, settings satisfies ArgumentPolicy);
  } catch (err) {
    if (err instanceof CommandLineError) return unknown(err.message);
    throw err;
  }
  // nrpe runs commands from / (the daemon's working folder).
  const argv = ['/bin/sh', '-c', nrpeMacros(line, args)];
  const ran = await runScriptArgv(name, argv, { ...settings, root: '/' }, limiter, signal, run);
  if ('result' in ran) return ran;
  const { outcome } = ran;
  if (outcome.error !== undefined) return unknown(`NRPE: Call to popen() failed (${outcome.error})`);
  if (outcome.timedOut) return unknown(`NRPE: Command timed out after ${settings.timeoutSeconds} seconds`);
  if (outcome.aborted) return unknown(`NRPE: Command ${name} was stopped`);
  if (outcome.stdout === '') {
    const sudoBlocked =
      /no new privileges/i.test(outcome.stderr) || (processHasNoNewPrivileges() && sudoUses(line).length > 0);
    return unknown(
      sudoBlocked
        ? `NRPE: Unable to read output: sudo cannot run under no_new_privs (NoNewPrivileges=yes): ${sudoFix()}`
        : 'NRPE: Unable to read output',
    );
  }
  const code = outcome.code === null ? CRITICAL : statusFromExitCode(outcome.code);
  const { message, perf } = splitOutput(outcome.stdout.replace(/\n$/, ''));
  return { command: name, result: code, message, perf };
}
