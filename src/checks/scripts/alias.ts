/**
 * Query aliases (NSClient++'s `[/settings/external scripts/alias]`): a name
 * that runs another query with arguments written in the settings, such as
 * `alias_cpu = check_cpu warn=load>80 crit=load>90`.
 *
 * The alias text is parsed by formats/alias-command.ts (settings
 * validation reads the same parser).
 *
 * Arguments of the caller fill `$ARG1$` ... `$ARGn$` (also written `%ARG1%`)
 * inside words and `$ARGS$` (a word of its own) with all of them, under the
 * alias's `allow arguments` / `allow nasty characters` policy: arguments
 * given while they are not allowed, or holding refused characters, answer
 * UNKNOWN saying so and the target query does not run.
 */
import { UNKNOWN, type QueryResult } from '../../core/result.js';
import { CommandLineError, expandArguments } from '../../formats/script-command-line.js';
import type { AliasDefinition } from '../../formats/alias-command.js';

export type AliasQueryFn = (
  command: string,
  args: readonly string[],
  options: { signal: AbortSignal },
) => Promise<QueryResult>;

/**
 * Run the alias: expand the caller's arguments into its words, run the
 * target query through the core, and answer its result under the alias's
 * name. Never throws.
 */
export async function runAlias(
  alias: AliasDefinition,
  args: readonly string[],
  query: AliasQueryFn,
  signal: AbortSignal,
): Promise<QueryResult> {
  let words: string[];
  try {
    words = expandArguments(alias.words, args, alias.policy);
  } catch (err) {
    if (err instanceof CommandLineError)
      return { command: alias.name, result: UNKNOWN, message: `${alias.name}: ${err.message}`, perf: [] };
    throw err;
  }
  try {
    const result = await query(alias.target, words, { signal });
    return { ...result, command: alias.name };
  } catch (err) {
    return {
      command: alias.name,
      result: UNKNOWN,
      message: `${alias.name}: ${alias.target} failed: ${err instanceof Error ? err.message : String(err)}`,
      perf: [],
    };
  }
}
