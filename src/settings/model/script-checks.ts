/**
 * Settings rules for the queries that CheckExternalScripts registers from
 * the file: scripts, wrapped scripts and aliases. Each broken rule is an
 * error at the line that decides it.
 * - An alias names a query that exists with these settings: a query of a
 *   module of the catalogue that [/modules] enables, a script or a wrapped
 *   script. Not another alias (so aliases never loop), and not a query that
 *   does not exist (the message suggests a near name).
 * - An alias, a script and a wrapped script do not share a name, and an
 *   alias does not take the name of a module's query (it would replace it).
 * - An alias has a command that parses (double quotes closed).
 * - A wrapped script has a template for its extension in
 *   [/settings/external scripts/wrappings].
 * Templates (`is template = 1`, `default`, `sample`) are not queries and are
 * not checked.
 */
import { CommandLineError } from '../../formats/script-command-line.js';
import { splitAliasCommand } from '../../formats/alias-command.js';
import { wrappedWords } from '../../formats/wrapped-script.js';
import { moduleOfQuery, moduleTable } from './module-table.js';
import { suggestion } from './did-you-mean.js';
import { problem, type SettingsProblem } from './problem.js';
import type { Origin, ResolvedObject } from './snapshot.js';
import { valueText } from './value-text.js';

export const SCRIPTS_PATH = '/settings/external scripts/scripts';
export const WRAPPED_PATH = '/settings/external scripts/wrapped scripts';
export const NRPE_COMMANDS_PATH = '/settings/external scripts/nrpe commands';
export const WRAPPINGS_PATH = '/settings/external scripts/wrappings';
export const ALIASES_PATH = '/settings/external scripts/alias';

export interface ScriptCheckInput {
  file: string;
  sections: Record<string, Record<string, unknown>>;
  origins: Record<string, Record<string, Origin>>;
  modules: Partial<Record<string, boolean>>;
  aliases: ReadonlyMap<string, ResolvedObject>;
}

export function scriptChecks(input: ScriptCheckInput): SettingsProblem[] {
  const out: SettingsProblem[] = [];
  const { file } = input;
  // NRPE commands are scripts to the rules below (an alias may run one; names are shared).
  const scripts = new Set([...namesOf(input.sections[SCRIPTS_PATH]), ...namesOf(input.sections[NRPE_COMMANDS_PATH])]);
  const wrapped = namesOf(input.sections[WRAPPED_PATH]);
  const wrappings = input.sections[WRAPPINGS_PATH] ?? {};

  for (const [name, line] of Object.entries(input.sections[WRAPPED_PATH] ?? {})) {
    const o = input.origins[WRAPPED_PATH]?.[name];
    const at = { file: o?.file ?? file, line: o?.line ?? 0, col: o?.col ?? 0, section: WRAPPED_PATH, key: name };
    if (scripts.has(name.toLowerCase()))
      out.push(
        problem('AGENT_ERR_WRAPPED_SCRIPT_INVALID', [name, `has the name of a script in [${SCRIPTS_PATH}]`], at),
      );
    const w = wrappedWords(String(line), wrappings, '.');
    if (!w.ok) out.push(problem('AGENT_ERR_WRAPPED_SCRIPT_INVALID', [name, w.problem], at));
  }

  const aliasNames = new Set([...input.aliases.values()].filter((a) => !a.isTemplate).map((a) => a.name.toLowerCase()));
  const enabledQueries = moduleTable()
    .filter((e) => input.modules[e.name] === true)
    .flatMap((e) => e.queries);
  for (const alias of input.aliases.values()) {
    if (alias.isTemplate) continue;
    const o = alias.origins.command ?? Object.values(alias.origins).find((x) => x.object === alias.name);
    const at = o
      ? { file: o.file, line: o.line, col: o.col, section: o.section, key: o.key }
      : { file, line: 0, col: 0, section: `${ALIASES_PATH}/${alias.name}` };
    const fail = (why: string, extra = ''): void =>
      void out.push(problem('AGENT_ERR_ALIAS_INVALID', [alias.name, why], at, extra));
    const lower = alias.name.toLowerCase();
    const owner = moduleOfQuery(alias.name);
    if (owner) fail(`has the name of a query of ${owner.name}; an alias cannot replace a query, choose another name`);
    else if (scripts.has(lower)) fail(`has the name of a script in [${SCRIPTS_PATH}]`);
    else if (wrapped.has(lower)) fail(`has the name of a wrapped script in [${WRAPPED_PATH}]`);
    const command = valueText(alias.values.command);
    let target: string | undefined;
    try {
      target = splitAliasCommand(command)[0];
    } catch (err) {
      if (!(err instanceof CommandLineError)) throw err;
      fail(`has a command that does not parse: ${err.message}`);
      continue;
    }
    if (target === undefined || target === '') {
      fail('has no command: write the query it runs, e.g. alias_cpu = check_cpu warn=load>80');
      continue;
    }
    const t = target.toLowerCase();
    const module = moduleOfQuery(target);
    if (module) {
      if (input.modules[module.name] !== true && input.modules.CheckExternalScripts === true)
        fail(`runs ${target}, a query of ${module.name}, which is not enabled in [/modules]`);
      continue;
    }
    if (aliasNames.has(t)) {
      fail(`runs ${target}, which is another alias; an alias can run only a query or a script`);
      continue;
    }
    if (scripts.has(t) || wrapped.has(t)) continue;
    const candidates = [...enabledQueries, ...scripts, ...wrapped];
    fail(`runs ${target}, which is not a query here`, suggestion(target, candidates));
  }
  return out;
}

function namesOf(section: Record<string, unknown> | undefined): Set<string> {
  return new Set(Object.keys(section ?? {}).map((k) => k.toLowerCase()));
}
