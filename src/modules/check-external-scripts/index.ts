/**
 * CheckExternalScripts: every entry of [/settings/external scripts/scripts]
 * (`name = command line`) is a query that runs the script as a child
 * process (src/checks/scripts/). The exec command `CheckExternalScripts`
 * lists, shows, adds and removes scripts for /api/v1/scripts/ext. New
 * settings apply in place: queries follow the entries, the limiter its
 * limit. stop() kills running scripts (their process groups).
 */
import { dirname, resolve } from 'node:path';
import type { AgentModule, ModuleContext } from '../module.js';
import type { Snapshot } from '../../settings/snapshot.js';
import type { ExternalScriptsSection } from '../../settings/generated/settings.js';
import { editSettingsFile } from '../../settings/edit-ini.js';
import { Limiter } from '../../checks/scripts/limiter.js';
import { runConfiguredScript, type ScriptSettings } from '../../checks/scripts/script-query.js';
import { scriptCommand, SCRIPTS_SECTION, type ScriptStore } from '../../checks/scripts/script-commands.js';

const SECTION = '/settings/external scripts';
const MODULE = 'CheckExternalScripts';

export function createModule(): AgentModule {
  let ctx: ModuleContext | undefined;
  let snapshot: Snapshot | undefined;
  let settings: ScriptSettings = { root: '.', timeoutSeconds: 60, allowArguments: false, allowNasty: false };
  const scripts = new Map<string, string>();
  const registered = new Map<string, () => void>();
  const limiter = new Limiter(8);
  let stopper = new AbortController();
  let unregisterExec: (() => void) | undefined;

  const register = (name: string): void => {
    if (!ctx || registered.has(name)) return;
    const owner = ctx.core.getQuery(name);
    if (owner && owner.module !== MODULE) ctx.log.warning(`script ${name} replaces the query of the same name from ${owner.module}`);
    registered.set(
      name,
      ctx.core.registerSimpleQuery({ name, module: MODULE, title: `Script ${name}`, description: `Runs the external script: ${scripts.get(name) ?? ''}` }, (args, call) => {
        const line = scripts.get(name);
        if (line === undefined) return Promise.resolve({ result: 3 as const, message: `Script not found: ${name}`, perf: [] });
        return runConfiguredScript(name, line, args, settings, limiter, AbortSignal.any([call.signal, stopper.signal]));
      }),
    );
  };
  const unregister = (name: string): void => {
    registered.get(name)?.();
    registered.delete(name);
  };

  const configure = (next: Snapshot): void => {
    snapshot = next;
    const s = (next.sections[SECTION] ?? {}) as Partial<ExternalScriptsSection>;
    const base = next.variables['base-path'] ?? dirname(next.file);
    settings = {
      root: resolve(base, s['script root'] ?? next.variables.scripts ?? 'scripts'),
      timeoutSeconds: s.timeout ?? 60,
      allowArguments: s['allow arguments'] ?? false,
      allowNasty: s['allow nasty characters'] ?? false,
    };
    limiter.setMax(s['max concurrent'] ?? 8);
    const list = (next.sections[SCRIPTS_SECTION] ?? {}) as Record<string, unknown>;
    scripts.clear();
    for (const [name, line] of Object.entries(list)) if (typeof line === 'string') scripts.set(name, line);
    for (const name of [...registered.keys()]) if (!scripts.has(name)) unregister(name);
    for (const name of scripts.keys()) register(name);
  };

  const store: ScriptStore = {
    root: () => settings.root,
    scripts: () => scripts,
    async setEntry(name, commandLine) {
      await editSettingsFile(settingsFile(), [{ op: 'set', section: SCRIPTS_SECTION, key: name, value: commandLine }]);
      scripts.set(name, commandLine);
      register(name);
    },
    async removeEntry(name) {
      await editSettingsFile(settingsFile(), [{ op: 'remove-key', section: SCRIPTS_SECTION, key: name }]);
      scripts.delete(name);
      unregister(name);
    },
  };
  const settingsFile = (): string => {
    if (!snapshot) throw new Error('CheckExternalScripts is not started');
    return snapshot.file;
  };

  return {
    name: MODULE,
    async start(context: ModuleContext) {
      ctx = context;
      stopper = new AbortController();
      configure(context.settings);
      unregisterExec = context.core.registerSimpleExec(
        { name: MODULE, module: MODULE, title: 'External scripts', description: 'list --json [--all] | show --script NAME | add --script NAME --content-base64 B64 | delete --script NAME' },
        (args) => scriptCommand(args, store),
      );
      context.log.info(`${scripts.size} script(s) from ${settings.root}`);
    },
    async apply(next: Snapshot) {
      configure(next);
      return true;
    },
    async stop() {
      stopper.abort(new Error('CheckExternalScripts is stopping'));
      unregisterExec?.();
      unregisterExec = undefined;
      for (const name of [...registered.keys()]) unregister(name);
      ctx = undefined;
    },
  };
}
