/**
 * A small argument parser for the CLI: `--name value`, `--name=value`,
 * boolean flags, and positionals. Unknown options are usage errors (exit 2)
 * with a suggestion.
 */
import { AgentError } from '../errors.js';
import { suggestion } from '../settings/did-you-mean.js';

export interface OptionSpec {
  /** Takes a value (`--format json`) or is a flag (`--strict`). */
  value: boolean;
  /** May repeat; values collect in order. */
  repeat?: boolean;
}

export interface ParsedArgs {
  options: Record<string, string | boolean | string[]>;
  positionals: string[];
}

export function parseArgs(argv: readonly string[], spec: Record<string, OptionSpec>): ParsedArgs {
  const options: ParsedArgs['options'] = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--') || arg === '--') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    const s = spec[name];
    if (!s) throw new AgentError('AGENT_ERR_USAGE', [`unknown option --${name}${suggestion(name, Object.keys(spec))}`]);
    let value: string | boolean = true;
    if (s.value) {
      if (eq >= 0) value = arg.slice(eq + 1);
      else {
        const next = argv[i + 1];
        if (next === undefined) throw new AgentError('AGENT_ERR_USAGE', [`option --${name} needs a value`]);
        value = next;
        i++;
      }
    } else if (eq >= 0) {
      throw new AgentError('AGENT_ERR_USAGE', [`option --${name} takes no value`]);
    }
    if (s.repeat) {
      const list = (options[name] as string[] | undefined) ?? [];
      list.push(String(value));
      options[name] = list;
    } else {
      options[name] = value;
    }
  }
  return { options, positionals };
}

/**
 * Take `--settings FILE` (or `--settings=FILE`) out of an argument list
 * wherever it stands, for the commands whose remaining arguments belong to a
 * query (`agent query`, `agent client`): no query has an option of that name.
 */
export function takeSettingsOption(argv: readonly string[]): { settings: string | undefined; rest: string[] } {
  const rest: string[] = [];
  let settings: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--settings' && i + 1 < argv.length) settings = argv[++i];
    else if (a.startsWith('--settings=')) settings = a.slice('--settings='.length);
    else rest.push(a);
  }
  return { settings, rest };
}

/** The settings file a command works on: --settings, else AGENT_SETTINGS, else settings/agent.ini. */
export function settingsPath(options: ParsedArgs['options']): string {
  const s = options.settings;
  if (typeof s === 'string') return s;
  return process.env.AGENT_SETTINGS ?? 'settings/agent.ini';
}

export function out(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

export function err(text: string): void {
  process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
}

/**
 * The exit code for settings that did not load: 2 (a usage problem, as for
 * a wrong path) when the file itself could not be read, 1 when it was read
 * and is invalid. Every command that reads settings answers the same.
 */
export function settingsExitCode(problems: readonly { code: string }[]): 1 | 2 {
  return problems.some((p) => p.code === 'AGENT_ERR_SETTINGS_UNREADABLE') ? 2 : 1;
}
