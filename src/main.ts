#!/usr/bin/env node
/**
 * Process entry of the `config-agent` command: dispatches to the commands in
 * cli/, maps failures to exit codes (0 ok, 1 invalid settings or a failed
 * command, 2 usage, 0-3 check status for `query` and `client`, 70 crash).
 */
import { AgentError, errorMessage } from './errors.js';
import { installCrashHandlers } from './cli/crash.js';
import { VERSION } from './version.js';
import { helpFormOf, runHelpForm, type HelpForm } from './cli/help-forms.js';
import { findCommand } from './cli/commands.js';

export const HELP = `Usage: config-agent <command> [options]

Commands:
  run [--settings FILE]                  run the agent in the foreground
  query <command> [args…]                run one local query, print it the Nagios way
  client <query> [options]               run a client query (remote_query, agent_query, …)
  settings validate [FILE…]              validate settings files (--format text|json|github, --strict)
  settings show [FILE]                   effective settings with origins (--resolved, --section, --json)
  settings defaults                      every key with its default and meaning (a commented INI)
  settings schema                        print the combined JSON Schema
  settings plan OLD NEW                  what a reconcile from OLD to NEW would do
  settings import NSCLIENT.INI|NRPE.CFG  translate an NSClient++ or nrpe settings file (--output FILE)
  settings fmt [FILE…]                   rewrite files in the canonical layout (--check, --diff)
  settings set --path S --key K ...      set (--value V) or remove (--remove) one key
  settings pull                          pull [/settings/source] now and apply it
  web install|password|add-user|add-role configure the web server
  --version                              print the version

Every command that reads settings takes --settings FILE (default: $AGENT_SETTINGS,
which the package sets to /etc/config-agent/agent.ini, else settings/agent.ini);
the *.ini files of conf.d/ beside it are read after it. Run
"config-agent <command> --help" for details.`;

async function dispatch(argv: string[]): Promise<number> {
  const [cmd] = argv;
  switch (cmd) {
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(`${HELP}\n`);
      return cmd === undefined ? 2 : 0;
    case 'help-short':
    case 'help-csv':
      return runHelpForm(async () => (process.stdout.write(`${HELP}\n`), 0), helpFormOf(cmd) as HelpForm);
    case '--version':
    case 'version':
      process.stdout.write(`${VERSION}\n`);
      return 0;
  }
  const found = findCommand(argv);
  if (!found) throw new AgentError('AGENT_ERR_USAGE', [`unknown command "${cmd}"; run config-agent --help`]);
  const command = await found.entry.load();
  // NSClient++'s help forms of a command (`config-agent run help-short`, `config-agent web add-user help-csv`),
  // not of a query's arguments: `config-agent query help` and `config-agent client help` are the command's own help.
  const form = helpFormOf(found.rest[0]);
  if (form) return runHelpForm((a) => command.run(a), form);
  return command.run(found.rest);
}

// `config-agent settings show | head` closes the pipe early: that is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

// Before any command runs: an uncaught exception or unhandled rejection exits 70 with its stack.
installCrashHandlers();

dispatch(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof AgentError && err.code === 'AGENT_ERR_USAGE') {
      process.stderr.write(`config-agent: ${err.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(
      `config-agent: ${err instanceof Error && !(err instanceof AgentError) ? (err.stack ?? err.message) : errorMessage(err)}\n`,
    );
    process.exitCode = err instanceof AgentError ? 1 : 70;
  },
);
