/**
 * Query aliases (NSClient++'s `[/settings/external scripts/alias]`): a name
 * that runs another query with arguments written in the settings, such as
 * `alias_cpu = check_cpu warn=load>80 crit=load>90`.
 *
 * The alias text splits at blanks; double quotes group words and are
 * removed (`"warn=load > $ARG1$"` is one word). Nothing else is special:
 * single quotes and backslashes stay as written, so `crit=state != 'started'`
 * and `drive=C:\` keep their meaning, as in NSClient++.
 *
 * Arguments of the caller fill `$ARG1$` ... `$ARGn$` (also written `%ARG1%`)
 * inside words and `$ARGS$` (a word of its own) with all of them, under the
 * alias's `allow arguments` / `allow nasty characters` policy: arguments
 * given while they are not allowed, or holding refused characters, answer
 * UNKNOWN saying so and the target query does not run.
 */
import { UNKNOWN, type QueryResult } from '../../core/result.js';
import { CommandLineError, expandArguments, type ArgumentPolicy } from './command-line.js';

export interface AliasDefinition {
  /** The alias's own name (the query it registers). */
  name: string;
  /** The query it runs. */
  target: string;
  /** The words after the target, before argument expansion. */
  words: readonly string[];
  policy: ArgumentPolicy;
}

export type AliasQueryFn = (command: string, args: readonly string[], options: { signal: AbortSignal }) => Promise<QueryResult>;

/** Split an alias text into words; throws CommandLineError for an unclosed double quote. */
export function splitAliasCommand(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quoted = false;
  for (const c of text) {
    if (c === '"') {
      quoted = !quoted;
      inWord = true;
    } else if (!quoted && /\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quoted) throw new CommandLineError(`unclosed " in: ${text}`);
  if (inWord) words.push(word);
  return words;
}

/** Parse an alias text into its target and words; throws CommandLineError when it is empty or badly quoted. */
export function parseAlias(name: string, text: string, policy: ArgumentPolicy): AliasDefinition {
  const [target, ...words] = splitAliasCommand(text);
  if (target === undefined || target === '') throw new CommandLineError(`alias ${name} names no query`);
  return { name, target, words, policy };
}

/**
 * Run the alias: expand the caller's arguments into its words, run the
 * target query through the core, and answer its result under the alias's
 * name. Never throws.
 */
export async function runAlias(alias: AliasDefinition, args: readonly string[], query: AliasQueryFn, signal: AbortSignal): Promise<QueryResult> {
  let words: string[];
  try {
    words = expandArguments(alias.words, args, alias.policy);
  } catch (err) {
    if (err instanceof CommandLineError) return { command: alias.name, result: UNKNOWN, message: `${alias.name}: ${err.message}`, perf: [] };
    throw err;
  }
  try {
    const result = await query(alias.target, words, { signal });
    return { ...result, command: alias.name };
  } catch (err) {
    return { command: alias.name, result: UNKNOWN, message: `${alias.name}: ${alias.target} failed: ${err instanceof Error ? err.message : String(err)}`, perf: [] };
  }
}
