#!/usr/bin/env node
/**
 * Process entry of the `agent` command: dispatches to the commands in
 * cli/, maps failures to exit codes (0 ok, 1 invalid settings or a failed
 * command, 2 usage, 0-3 check status for `query` and `client`, 70 crash).
 */
import { AgentError, errorMessage } from './errors.js';
import { installCrashHandlers } from './cli/crash.js';
import { VERSION } from './version.js';
import { helpFormOf, runHelpForm, type HelpForm } from './cli/help-forms.js';

export const HELP = `Usage: agent <command> [options]

Commands:
  run [--settings FILE]                  run the agent in the foreground
  query <command> [args…]                run one local query, print it the Nagios way
  client <query> [options]               run a client query (remote_query, agent_query, …)
  settings validate [FILE…]              validate settings files (--format text|json|github, --strict)
  settings show [FILE]                   effective settings with origins (--resolved, --section, --json)
  settings schema                        print the combined JSON Schema
  settings plan OLD NEW                  what a reconcile from OLD to NEW would do
  settings import NSCLIENT.INI           translate an NSClient++ settings file (--output FILE, --format json)
  settings fmt [FILE…]                   rewrite files in the canonical layout (--check, --diff)
  web install|password|add-user|add-role configure the web server
  --version                              print the version

Every command that reads settings takes --settings FILE (default: $AGENT_SETTINGS,
else settings/agent.ini). Run "agent <command> --help" for details.`;

type Command = (argv: string[]) => Promise<number>;

async function dispatch(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  const form = helpFormOf(rest[0]);
  // `agent run help-short`, `agent web help`: NSClient++'s help forms of a command (not of a query's arguments).
  if (form && (cmd === 'run' || cmd === 'web' || cmd === 'settings')) return runHelpForm((a) => dispatch([cmd, ...a]), form);
  const webForm = cmd === 'web' && rest[0] !== undefined ? helpFormOf(rest[1]) : undefined;
  if (webForm) return runHelpForm((a) => dispatch(['web', rest[0] as string, ...a]), webForm);
  if (form === undefined && (cmd === 'help-short' || cmd === 'help-csv')) return runHelpForm(async () => (process.stdout.write(`${HELP}\n`), 0), helpFormOf(cmd) as HelpForm);
  switch (cmd) {
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(`${HELP}\n`);
      return cmd === undefined ? 2 : 0;
    case '--version':
    case 'version':
      process.stdout.write(`${VERSION}\n`);
      return 0;
    case 'run':
      return (await import('./cli/run.js')).runCommand(rest);
    case 'query':
      return (await import('./cli/query.js')).queryCommand(rest);
    case 'settings':
      return settings(rest);
    case 'web':
      return (await lazy('./cli/web.js', 'runWebCommand'))(rest);
    case 'client':
      return (await lazy('./cli/client.js', 'runClientCommand'))(rest);
    default:
      throw new AgentError('AGENT_ERR_USAGE', [`unknown command "${cmd}"; run agent --help`]);
  }
}

async function settings(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const form = helpFormOf(rest[0]);
  if (form && sub !== undefined) return runHelpForm((a) => settings([sub, ...a]), form);
  switch (sub) {
    case 'validate':
      return (await import('./cli/settings-validate.js')).validateCommand(rest);
    case 'show':
      return (await import('./cli/settings-show.js')).showCommand(rest);
    case 'schema':
      return (await import('./cli/settings-schema.js')).schemaCommand(rest);
    case 'plan':
      return (await import('./cli/settings-plan.js')).planCommand(rest);
    case 'import':
      return (await import('./cli/settings-import.js')).importCommand(rest);
    case 'fmt':
      return (await import('./cli/settings-fmt.js')).fmtCommand(rest);
    case '--help':
    case 'help':
    case undefined:
      process.stdout.write('Usage: agent settings validate|show|schema|plan|import|fmt [options]\nRun "agent settings <sub> --help" for details.\n');
      return sub === undefined ? 2 : 0;
    default:
      throw new AgentError('AGENT_ERR_USAGE', [`unknown settings command "${sub}" (validate, show, schema, plan, import, fmt)`]);
  }
}

/** Import a command module by path (kept loose so each command loads only when used). */
async function lazy(path: string, name: string): Promise<Command> {
  const mod = (await import(path)) as Record<string, Command>;
  const fn = mod[name];
  if (typeof fn !== 'function') throw new Error(`${path} does not export ${name}`);
  return fn;
}

// `agent settings show | head` closes the pipe early: that is not an error.
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
      process.stderr.write(`agent: ${err.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`agent: ${err instanceof Error && !(err instanceof AgentError) ? err.stack : errorMessage(err)}\n`);
    process.exitCode = err instanceof AgentError ? 1 : 70;
  },
);
