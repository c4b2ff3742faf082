/**
 * The parser of the CLI's own flags: node's `util.parseArgs`, strict, with
 * its options config made from the command's table (options.ts):
 * `--name value`, `--name=value`, boolean flags, repeatable options, and
 * positionals (`--` ends the options). Every failure is a usage error
 * (AGENT_ERR_USAGE, exit 2) in our own words: `unknown option --nme (did
 * you mean --name?)`, `option --name needs a value`, `option --flag takes
 * no value`. A value that starts with a dash is written `--name=-value`.
 * The client queries' arguments keep NSClient++'s syntax and their own
 * parser (protocols/client-options.ts).
 *
 * Arguments that are all plain (`--name value` with a value that does not
 * start with a dash, `--name=value`, known flags, positionals) are read
 * without node's parser: its code loads and compiles at its first call,
 * about 0.4 ms of every start. Anything else goes to util.parseArgs, which
 * accepts it or says what is wrong; the unit test holds the two readings equal.
 */
import { parseArgs as nodeParseArgs } from 'node:util';
import { AgentError } from '../errors.js';
import { suggestion } from '../settings/model/did-you-mean.js';
import { parseArgsOptions, type CliOption } from './options.js';

export interface ParsedArgs {
  options: Record<string, string | boolean | string[]>;
  positionals: string[];
}

export function parseArgs(argv: readonly string[], table: readonly CliOption[]): ParsedArgs {
  const plain = plainArgs(argv, table);
  if (plain !== undefined) return plain;
  const options = parseArgsOptions(table);
  try {
    const { values, positionals } = nodeParseArgs({ args: [...argv], options, strict: true, allowPositionals: true });
    return { options: { ...values } as ParsedArgs['options'], positionals };
  } catch (err) {
    if (!isParseArgsError(err)) throw err;
    throw new AgentError('AGENT_ERR_USAGE', [usageProblem(argv, table) ?? err.message.split('\n')[0]]);
  }
}

/**
 * `argv` read as util.parseArgs (strict, positionals allowed) reads it, when every word is
 * plain; undefined for anything else (a short option, an unknown name, a flag given a value or
 * repeated, a missing value or one that starts with a dash), which node's parser then accepts or refuses.
 */
export function plainArgs(argv: readonly string[], table: readonly CliOption[]): ParsedArgs | undefined {
  const byName = new Map(table.map((o) => [o.name, o]));
  const options: ParsedArgs['options'] = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (word === '-' || !word.startsWith('-')) {
      positionals.push(word);
      continue;
    }
    if (!word.startsWith('--')) return undefined;
    const eq = word.indexOf('=');
    const option = byName.get(eq === -1 ? word.slice(2) : word.slice(2, eq));
    if (option === undefined) return undefined;
    let value: string | true = true;
    if (option.arg === undefined) {
      if (eq !== -1 || option.repeat) return undefined;
    } else if (eq !== -1) {
      value = word.slice(eq + 1);
    } else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('-')) return undefined;
      value = next;
      i++;
    }
    const before = options[option.name];
    options[option.name] = option.repeat ? [...(Array.isArray(before) ? before : []), value as string] : value;
  }
  return { options, positionals };
}

/**
 * What the strict parse refused, in our words: the first offending token of
 * a lenient parse of the same arguments, which reads them the same way.
 */
function usageProblem(argv: readonly string[], table: readonly CliOption[]): string | undefined {
  const byName = new Map(table.map((o) => [o.name, o]));
  const { tokens } = nodeParseArgs({
    args: [...argv],
    options: parseArgsOptions(table),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    const o = byName.get(t.name);
    if (!o) return `unknown option ${t.rawName}${suggestion(t.name, byName.keys())}`;
    if (o.arg === undefined && t.inlineValue) return `option --${o.name} takes no value`;
    // Missing, or the next option taken for the value (`--format --strict`).
    if (o.arg !== undefined && (t.value === undefined || (!t.inlineValue && t.value.startsWith('-')))) {
      return `option --${o.name} needs a value${t.value === undefined ? '' : ` (for a value that starts with a dash write --${o.name}=${t.value})`}`;
    }
  }
  return undefined;
}

function isParseArgsError(err: unknown): err is Error {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

/**
 * Take `--settings FILE` (or `--settings=FILE`) out of an argument list
 * wherever it stands, for the commands whose remaining arguments belong to a
 * query (`config-agent query`, `config-agent client`): no query has an option of that name.
 */
export function takeSettingsOption(argv: readonly string[]): { settings: string | undefined; rest: string[] } {
  // Lenient: every other word is left as it stands, for the query's own parser.
  const { tokens } = nodeParseArgs({
    args: [...argv],
    options: { settings: { type: 'string' } },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const taken = new Set<number>();
  let settings: string | undefined;
  for (const t of tokens) {
    if (t.kind !== 'option' || t.name !== 'settings' || t.value === undefined) continue;
    settings = t.value;
    taken.add(t.index);
    if (!t.inlineValue) taken.add(t.index + 1);
  }
  return { settings, rest: argv.filter((_, i) => !taken.has(i)) };
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
