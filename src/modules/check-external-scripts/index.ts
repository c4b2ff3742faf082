/**
 * CheckExternalScripts: every entry of [/settings/external scripts/scripts]
 * (`name = command line`) is a query that runs the script as a child
 * process (src/checks/scripts/); so is every entry of `[.../wrapped
 * scripts]`, run through the template of its extension in
 * `[.../wrappings]`; every alias of `[.../alias]` (one-liners and
 * `[.../alias/<name>]` objects) is a query that runs another query through
 * the core with its own arguments; when the file defines no alias,
 * NSClient++'s default aliases (checks/scripts/default-aliases.ts). All of them are normal queries of this
 * module, so whatever limits who may run a query limits them too. The exec
 * command `CheckExternalScripts` lists, shows, adds and removes scripts for
 * /api/v1/scripts/ext. New settings apply in place: queries follow the
 * entries, the limiter its limit. stop() kills running scripts (their
 * process groups).
 */
import { resolve } from 'node:path';
import type { AgentModule, ModuleContext, RunningModule } from '../module.js';
import { startWithReleases, type Releases } from '../releases.js';
import type { SettingsOf } from '../../settings/model/module-table.js';
import { editSettings } from '../../settings/store/edit-tree.js';
import { Limiter } from '../../checks/scripts/limiter.js';
import { ScriptSpawner } from '../../checks/scripts/spawner.js';
import { runConfiguredScript, type ScriptSettings } from '../../checks/scripts/script-query.js';
import { runNrpeCommand } from '../../checks/scripts/nrpe-command.js';
import { scriptCommand, SCRIPTS_SECTION, type ScriptStore } from '../../checks/scripts/script-commands.js';
import { wrappedWords } from '../../formats/wrapped-script.js';
import { runAlias } from '../../checks/scripts/alias.js';
import { parseAlias, type AliasDefinition } from '../../formats/alias-command.js';
import { UNKNOWN } from '../../core/result.js';
import { NRPE_COMMANDS_PATH, WRAPPED_PATH, WRAPPINGS_PATH } from '../../settings/model/script-checks.js';
import { valueText } from '../../settings/model/value-text.js';
import { withLinkedSignal } from '../../abort-link.js';
import type { Core, QueryCall, SimpleQuery } from '../../core/core.js';

type SimpleAnswer = Awaited<ReturnType<SimpleQuery>>;
import { DEFAULT_ALIASES } from '../../checks/scripts/default-aliases.js';

const SECTION = '/settings/external scripts';
const MODULE = 'CheckExternalScripts';

type Settings = SettingsOf<'CheckExternalScripts'>;

/** What a script run needs from [/settings/external scripts]. */
function scriptSettingsOf(view: Settings): ScriptSettings {
  const s = view.sections[SECTION];
  return {
    root: resolve(view.variables['base-path'], s['script root']),
    timeoutSeconds: s.timeout,
    allowArguments: s['allow arguments'],
    allowNasty: s['allow nasty characters'],
  };
}

export const agentModule: AgentModule<Settings> = {
  name: MODULE,
  start: (ctx) => startWithReleases(ctx, (releases) => startScripts(ctx, releases)),
};

// long function: start, apply and stop share the module's state in one closure
async function startScripts(ctx: ModuleContext<Settings>, releases: Releases): Promise<RunningModule<Settings>> {
  let snapshot = ctx.settings;
  let settings = scriptSettingsOf(snapshot);
  let stopped = false;
  const scripts = new Map<string, string>();
  /** NRPE commands: name -> the shell line, run as nrpe runs it (checks/scripts/nrpe-command.ts). */
  const nrpeCommands = new Map<string, string>();
  /** Wrapped scripts: name -> the command words (template filled in), or why they cannot run. */
  const wrapped = new Map<string, { words: string[] } | { problem: string }>();
  /** Wrapped scripts: name -> the line as written (for the query's description). */
  const wrappedLines = new Map<string, string>();
  const aliases = new Map<string, AliasDefinition | { problem: string }>();
  /** The aliases of `aliases` that are NSClient++'s defaults (the file defines none). */
  const defaults = new Set<string>();
  /** Name -> unregister, and what the registration was for (re-registered when that changes). */
  const registered = new Map<string, { undo: () => void; key: string }>();
  const limiter = new Limiter(8);
  // Starts the scripts from a small process instead of forking this one (spawner.ts); started with the first run.
  const spawner = new ScriptSpawner({ log: (level, message) => ctx.log[level](message) });
  const run = spawner.run.bind(spawner);
  const stopper = new AbortController();

  /** One run of the script, wrapped script or alias `name`. */
  const answer = (
    core: Core,
    call: QueryCall,
    name: string,
    args: string[],
    signal: AbortSignal,
  ): Promise<SimpleAnswer> => {
    const a = aliases.get(name);
    // The alias's target runs under the caller's allow-list (a peer's `allowed queries`), never around it.
    if (a)
      return 'target' in a
        ? runAlias(a, args, (c, w, o) => core.query(c, w, call.allow ? { ...o, allow: call.allow } : o), signal)
        : Promise.resolve({ result: UNKNOWN, message: `${name}: ${a.problem}`, perf: [] });
    const w = wrapped.get(name);
    if (w)
      return 'words' in w
        ? runConfiguredScript(name, w.words, args, settings, limiter, signal, run)
        : Promise.resolve({ result: UNKNOWN, message: `${name}: ${w.problem}`, perf: [] });
    const shell = nrpeCommands.get(name);
    if (shell !== undefined) return runNrpeCommand(name, shell, args, settings, limiter, signal, run);
    const line = scripts.get(name);
    if (line === undefined) return Promise.resolve({ result: UNKNOWN, message: `Script not found: ${name}`, perf: [] });
    return runConfiguredScript(name, line, args, settings, limiter, signal, run);
  };

  const register = (name: string): void => {
    if (stopped) return;
    const alias = aliases.get(name);
    const info = alias
      ? {
          name,
          module: MODULE,
          title: `Alias ${name}`,
          description:
            'target' in alias
              ? `${defaults.has(name) ? 'Default alias (NSClient++) for' : 'Alias for'}: ${alias.target}`
              : `Alias (invalid: ${alias.problem})`,
          ...('target' in alias ? { aliasOf: alias.target } : {}),
        }
      : nrpeCommands.has(name)
        ? {
            name,
            module: MODULE,
            title: `NRPE command ${name}`,
            description: `Runs as nrpe ran it (/bin/sh -c, stdout only): ${nrpeCommands.get(name) ?? ''}`,
          }
        : wrapped.has(name)
          ? {
              name,
              module: MODULE,
              title: `Wrapped script ${name}`,
              description: `Runs the wrapped script: ${wrappedLines.get(name) ?? ''}`,
            }
          : {
              name,
              module: MODULE,
              title: `Script ${name}`,
              description: `Runs the external script: ${scripts.get(name) ?? ''}`,
            };
    const key = JSON.stringify(info);
    const current = registered.get(name);
    if (current?.key === key) return;
    current?.undo();
    const owner = ctx.core.getQuery(name);
    if (!current && owner && owner.module !== MODULE)
      ctx.log.warning(`script ${name} replaces the query of the same name from ${owner.module}`);
    const core = ctx.core;
    registered.set(name, {
      key,
      undo: core.registerSimpleQuery(info, (args, call) =>
        withLinkedSignal<SimpleAnswer>([call.signal, stopper.signal], (signal) =>
          answer(core, call, name, args, signal),
        ),
      ),
    });
  };
  const unregister = (name: string): void => {
    registered.get(name)?.undo();
    registered.delete(name);
  };
  const configure = (next: Settings): void => {
    snapshot = next;
    settings = scriptSettingsOf(next);
    limiter.setMax(next.sections[SECTION]['max concurrent'], next.sections[SECTION]['max queued']);
    scripts.clear();
    for (const [name, line] of Object.entries(next.sections[SCRIPTS_SECTION]))
      if (typeof line === 'string') scripts.set(name, line);
    nrpeCommands.clear();
    for (const [name, line] of Object.entries(next.sections[NRPE_COMMANDS_PATH]))
      if (typeof line === 'string' && !scripts.has(name)) nrpeCommands.set(name, line);
    wrapped.clear();
    wrappedLines.clear();
    const wrappings = next.sections[WRAPPINGS_PATH];
    for (const [name, line] of Object.entries(next.sections[WRAPPED_PATH])) {
      if (typeof line !== 'string') continue;
      const w = wrappedWords(line, wrappings, settings.root);
      wrapped.set(name, w.ok ? { words: w.words } : { problem: w.problem });
      wrappedLines.set(name, line);
    }
    aliases.clear();
    defaults.clear();
    // As NSClient++: its default aliases when the file defines none (README: Query aliases).
    if ([...next.aliases.values()].every((a) => a.isTemplate)) {
      const policy = { allowArguments: settings.allowArguments, allowNasty: settings.allowNasty };
      for (const [name, command] of Object.entries(DEFAULT_ALIASES)) {
        if (scripts.has(name) || wrapped.has(name) || nrpeCommands.has(name)) continue;
        aliases.set(name, parseAlias(name, command, policy));
        defaults.add(name);
      }
    }
    for (const a of next.aliases.values()) {
      if (a.isTemplate) continue;
      const policy = {
        allowArguments:
          typeof a.values['allow arguments'] === 'boolean' ? a.values['allow arguments'] : settings.allowArguments,
        allowNasty:
          typeof a.values['allow nasty characters'] === 'boolean'
            ? a.values['allow nasty characters']
            : settings.allowNasty,
      };
      try {
        aliases.set(a.name, parseAlias(a.name, valueText(a.values.command), policy));
      } catch (err) {
        aliases.set(a.name, { problem: err instanceof Error ? err.message : String(err) });
      }
    }
    const wanted = new Set([...scripts.keys(), ...nrpeCommands.keys(), ...wrapped.keys(), ...aliases.keys()]);
    for (const name of [...registered.keys()]) if (!wanted.has(name)) unregister(name);
    for (const name of wanted) register(name);
  };

  const store: ScriptStore = {
    root: () => settings.root,
    scripts: () => scripts,
    async setEntry(name, commandLine) {
      await editSettings(settingsFile(), [{ op: 'set', section: SCRIPTS_SECTION, key: name, value: commandLine }]);
      scripts.set(name, commandLine);
      register(name);
    },
    async removeEntry(name) {
      await editSettings(settingsFile(), [{ op: 'remove-key', section: SCRIPTS_SECTION, key: name }]);
      scripts.delete(name);
      unregister(name);
    },
  };
  const settingsFile = (): string => snapshot.file;

  releases.add(() => spawner.stop());
  releases.add(() => {
    for (const name of [...registered.keys()]) unregister(name);
  });
  releases.add(() => {
    // An exec command still under way registers nothing more; running scripts are killed.
    stopped = true;
    stopper.abort(new Error('CheckExternalScripts is stopping'));
  });
  configure(ctx.settings);
  releases.add(
    ctx.core.registerSimpleExec(
      {
        name: MODULE,
        module: MODULE,
        title: 'External scripts',
        description:
          'list --json [--all] | show --script NAME | add --script NAME --content-base64 B64 | delete --script NAME',
      },
      (args) => scriptCommand(args, store),
    ),
  );
  ctx.log.info(
    `${scripts.size} script(s), ${nrpeCommands.size} NRPE command(s), ${wrapped.size} wrapped script(s) from ${settings.root}, ${aliases.size} alias(es)`,
  );
  return {
    async apply(next: Settings) {
      configure(next);
      return true;
    },
    stop: () => releases.releaseAll(),
  };
}
