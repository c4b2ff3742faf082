/**
 * One option table per command: the parser (args.ts, node's util.parseArgs)
 * takes its options config from the table and the command's --help prints its option lines
 * from the same table, so an option cannot be accepted without being
 * listed. `commands.ts` names every command with its table.
 */
import type { ParseArgsConfig } from 'node:util';

export interface CliOption {
  /** Without the dashes: `settings` for `--settings`. */
  readonly name: string;
  /** The argument's name in help (`FILE`); absent for a flag. */
  readonly arg?: string;
  /** One line: what the option does. */
  readonly help: string;
  /** May repeat; values collect in order. */
  readonly repeat?: boolean;
}

export const SETTINGS_OPTION: CliOption = {
  name: 'settings',
  arg: 'FILE',
  help: 'the settings file (default: $AGENT_SETTINGS, else settings/agent.ini)',
};
export const HELP_OPTION: CliOption = { name: 'help', help: 'print this help (also help, help-short, help-csv)' };

/** A table as util.parseArgs' `options` config: an option with an argument is a string, one without a boolean flag. */
export function parseArgsOptions(options: readonly CliOption[]): NonNullable<ParseArgsConfig['options']> {
  return Object.fromEntries(
    options.map((o) => [
      o.name,
      {
        type: o.arg !== undefined ? ('string' as const) : ('boolean' as const),
        ...(o.repeat ? { multiple: true } : {}),
      },
    ]),
  );
}

/** The `Options:` block of a --help text, one aligned line per option (help-forms.ts reads it back for help-csv). */
export function optionLines(options: readonly CliOption[]): string {
  const rows = options.map((o) => ({ head: `--${o.name}${o.arg ? ` ${o.arg}` : ''}`, help: o.help }));
  const width = Math.max(...rows.map((r) => r.head.length));
  return ['Options:', ...rows.map((r) => `  ${r.head.padEnd(width)}  ${r.help}`)].join('\n');
}

/** A command's whole --help: its text, then the options block. */
export function helpText(text: string, options: readonly CliOption[]): string {
  return `${text.replace(/\n+$/, '')}\n\n${optionLines(options)}`;
}
