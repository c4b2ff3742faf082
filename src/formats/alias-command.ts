/**
 * The command of a query alias (NSClient++'s `[/settings/external
 * scripts/alias]`), such as `alias_cpu = check_cpu warn=load>80`: the text
 * splits at blanks; double quotes group words and are removed
 * (`"warn=load > $ARG1$"` is one word). Nothing else is special: single
 * quotes and backslashes stay as written, so `crit=state != 'started'` and
 * `drive=C:\` keep their meaning, as in NSClient++. Settings validation
 * (settings/model/script-checks.ts) and the alias queries (checks/scripts/alias.ts)
 * read it.
 */
import { CommandLineError, type ArgumentPolicy } from './script-command-line.js';

export interface AliasDefinition {
  /** The alias's own name (the query it registers). */
  name: string;
  /** The query it runs. */
  target: string;
  /** The words after the target, before argument expansion. */
  words: readonly string[];
  policy: ArgumentPolicy;
}

/**
 * `text` written so that splitAliasCommand reads it back as the same
 * characters of the word it stands in, at the end of `before`: outside
 * double quotes, text with blanks is put in double quotes (a double quote
 * in the text itself cannot be written in this grammar and is kept as is).
 */
export function quoteInAliasCommand(text: string, before: string): string {
  const inside = (before.split('"').length - 1) % 2 === 1;
  return inside || !/\s/.test(text) ? text : `"${text}"`;
}

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
