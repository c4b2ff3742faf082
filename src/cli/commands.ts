/**
 * Every command of the `agent` CLI by the words that name it, with its
 * option table: main.ts dispatches from this list, and a test runs each
 * command's --help (and NSClient++'s help, help-short, help-csv) as a
 * process and checks that every option of the table is listed. Commands
 * load lazily, so `config-agent run` never loads the web CLI and the reverse.
 */
import { HELP_OPTION, helpText, type CliOption } from './options.js';

export interface Command {
  /** Runs the command on the arguments after its words; resolves with the exit code. */
  run(argv: string[]): Promise<number>;
  /** The options its parser accepts (the client queries' own options are in protocols/client-options.ts). */
  options: readonly CliOption[];
}

export interface CommandEntry {
  readonly words: readonly string[];
  load(): Promise<Command>;
}

/** `config-agent settings` alone: the list of its subcommands. */
export const SETTINGS_GROUP_HELP = helpText(
  'Usage: config-agent settings validate|show|schema|defaults|plan|import|fmt|set|pull [options]\nRun "config-agent settings <sub> --help" for details.',
  [HELP_OPTION],
);

export const COMMANDS: readonly CommandEntry[] = [
  {
    words: ['run'],
    load: async () => {
      const m = await import('./run.js');
      return { run: m.runCommand, options: m.RUN_OPTIONS };
    },
  },
  {
    words: ['query'],
    load: async () => {
      const m = await import('./query.js');
      return { run: m.queryCommand, options: m.QUERY_OPTIONS };
    },
  },
  {
    words: ['client'],
    load: async () => {
      const m = await import('./client.js');
      return { run: m.runClientCommand, options: m.CLIENT_CLI_OPTIONS };
    },
  },
  {
    words: ['settings', 'validate'],
    load: async () => {
      const m = await import('./settings-validate.js');
      return { run: m.validateCommand, options: m.VALIDATE_OPTIONS };
    },
  },
  {
    words: ['settings', 'show'],
    load: async () => {
      const m = await import('./settings-show.js');
      return { run: m.showCommand, options: m.SHOW_OPTIONS };
    },
  },
  {
    words: ['settings', 'schema'],
    load: async () => {
      const m = await import('./settings-schema.js');
      return { run: m.schemaCommand, options: m.SCHEMA_OPTIONS };
    },
  },
  {
    words: ['settings', 'plan'],
    load: async () => {
      const m = await import('./settings-plan.js');
      return { run: m.planCommand, options: m.PLAN_OPTIONS };
    },
  },
  {
    words: ['settings', 'import'],
    load: async () => {
      const m = await import('./settings-import.js');
      return { run: m.importCommand, options: m.IMPORT_OPTIONS };
    },
  },
  {
    words: ['settings', 'fmt'],
    load: async () => {
      const m = await import('./settings-fmt.js');
      return { run: m.fmtCommand, options: m.FMT_OPTIONS };
    },
  },
  {
    words: ['settings', 'pull'],
    load: async () => {
      const m = await import('./settings-pull.js');
      return { run: m.pullCommand, options: m.PULL_OPTIONS };
    },
  },
  {
    words: ['settings', 'set'],
    load: async () => {
      const m = await import('./settings-set.js');
      return { run: m.setCommand, options: m.SET_OPTIONS };
    },
  },
  {
    words: ['settings', 'defaults'],
    load: async () => {
      const m = await import('./settings-defaults.js');
      return { run: m.defaultsCommand, options: m.DEFAULTS_OPTIONS };
    },
  },
  { words: ['settings'], load: async () => ({ run: settingsGroup, options: [HELP_OPTION] }) },
  ...(['install', 'password', 'add-user', 'add-role'] as const).map((sub) => ({
    words: ['web', sub],
    load: async (): Promise<Command> => {
      const [m, o] = await Promise.all([import('./web.js'), import('./web-options.js')]);
      return { run: (argv: string[]) => m.runWebCommand([sub, ...argv]), options: o.WEB_OPTIONS[sub] };
    },
  })),
  {
    words: ['web'],
    load: async () => {
      const m = await import('./web.js');
      return { run: m.runWebCommand, options: [HELP_OPTION] };
    },
  },
];

/** The command named by the first words of argv (the longest match), and the arguments after them. */
export function findCommand(argv: readonly string[]): { entry: CommandEntry; rest: string[] } | undefined {
  let best: CommandEntry | undefined;
  for (const e of COMMANDS) {
    if (e.words.every((w, i) => argv[i] === w) && (!best || e.words.length > best.words.length)) best = e;
  }
  return best && { entry: best, rest: argv.slice(best.words.length) };
}

async function settingsGroup(argv: string[]): Promise<number> {
  const [sub] = argv;
  if (sub === undefined || sub === '--help' || sub === 'help') {
    process.stdout.write(`${SETTINGS_GROUP_HELP}\n`);
    return sub === undefined ? 2 : 0;
  }
  const { AgentError } = await import('../errors.js');
  throw new AgentError('AGENT_ERR_USAGE', [
    `unknown settings command "${sub}" (validate, show, schema, defaults, plan, import, fmt, set, pull)`,
  ]);
}
