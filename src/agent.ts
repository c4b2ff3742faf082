/**
 * A running agent: the core, the reconciler, the settings watcher and the
 * control surface the web API uses. `startAgent` loads the settings (and
 * fails with the problems when they are invalid), starts the modules the
 * file enables, and watches the file. `stop` stops modules in reverse order.
 */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { AgentError, errorMessage } from './errors.js';
import { sink, isLogLevel } from './log.js';
import { createCore } from './core/core-impl.js';
import type { Core } from './core/core.js';
import type { AgentControl, ModuleStatus, ReconcilerStatus, SettingsEdits, SourceStatus } from './core/control.js';
import type { ChangeStream } from './settings/store/change-stream.js';
import { SettingsSource } from './settings/source/settings-source.js';
import { prepareSourceFolder, signaturesRequired, sourceConfig } from './settings/source/source-config.js';
import { loadSettingsFile } from './settings/store/load-file.js';
import { SettingsReader } from './settings/store/includes.js';
import { describeProblem, type SettingsProblem } from './settings/model/problem.js';
import type { Snapshot } from './settings/model/snapshot.js';
import { catalogue, controlFor, findModule } from './modules/catalogue.js';
import { Reconciler, type ValidLoad } from './reconciler/reconciler.js';
import { editThroughStore } from './settings/store/edit-flow.js';
import { watchSettingsTree, type SettingsTreeWatcher } from './settings/store/tree-watcher.js';
import { PRODUCT, VERSION } from './version.js';
import { valueText } from './settings/model/value-text.js';
import { isoTime } from './iso-time.js';

export interface RunningAgent {
  core: Core;
  reconciler: Reconciler;
  /** `[/settings/source]`: pull now (SIGHUP), status. */
  source: SettingsSource;
  stop(): Promise<void>;
}

export type StartResult =
  { ok: true; agent: RunningAgent; warnings: SettingsProblem[] } | { ok: false; problems: SettingsProblem[] };

// long function: assembles the agent, each step handing the next what it made (reconciler, core, source, watcher); split, they would pass a dozen values around
export async function startAgent(options: {
  settingsFile: string;
  watch?: boolean;
  /** The change stream, when made before the agent (cli/run.ts: SIGHUP during the start); the reconciler consumes it. */
  changes?: ChangeStream<ReconcilerStatus>;
}): Promise<StartResult> {
  let loaded = await loadSettingsFile(options.settingsFile);
  if (!loaded.ok) return { ok: false, problems: loaded.problems };
  // A signed source's cached pulls are verified again before the agent runs on them (verify-cache.ts).
  if (signaturesRequired(sourceConfig(loaded.snapshot))) {
    const { verifyCachedPulls } = await import('./settings/source/verify-cache.js');
    if (await verifyCachedPulls(loaded.snapshot)) loaded = await loadSettingsFile(options.settingsFile);
    if (!loaded.ok) return { ok: false, problems: loaded.problems };
  }
  const snapshot = loaded.snapshot;
  applyLogSettings(snapshot.sections['/settings/log']);
  const started = isoTime(Date.now());
  let reconciler: Reconciler | undefined;
  const need = (): Reconciler => {
    if (!reconciler) throw new Error('agent is not started');
    return reconciler;
  };
  const known = (name: string): string => {
    const entry = findModule(name);
    if (!entry) throw new AgentError('AGENT_ERR_HTTP_NOT_FOUND', [`Module not found: ${name}`]);
    return entry.name;
  };
  const control: AgentControl = {
    settings: () => need().settings(),
    modules: () => need().status().modules,
    module: (name) => need().moduleStatus(name),
    load: (name) => need().setLoaded(known(name), true),
    unload: (name) => need().setLoaded(known(name), false),
    enable: (name) => setEnabled(known(name), true),
    disable: (name) => setEnabled(known(name), false),
    status: () => ({ ...need().status(), ...sourceStatus() }),
    reload: () => need().reload('requested'),
    pullSettings: () => source.pull('requested'),
    editSettings: (edits) => guardedEdit(edits, 'edited through the API'),
    logs: (levels) => sink.entries(levels),
    logStatus: () => ({ errors: sink.errors, lastError: sink.lastError }),
    clearLogs: () => sink.clear(),
    info: () => ({ name: PRODUCT, version: VERSION, started, pid: process.pid, settings: need().settings().file }),
  };
  async function setEnabled(name: string, enabled: boolean): Promise<ModuleStatus> {
    await guardedEdit(
      [{ op: 'set', section: '/modules', key: name, value: enabled ? 'enabled' : 'disabled' }],
      `${enabled ? 'enable' : 'disable'} ${name}`,
    );
    return need().moduleStatus(name) as ModuleStatus;
  }
  /**
   * Edit the settings file for the API, then wait for the reload that applies it. Refused (nothing
   * written) when the file is missing (an edit would create a file holding
   * only this key and unload everything else) or currently invalid (the
   * edit would not apply and would hide in a broken file); the edit is
   * written only over the exact content just validated.
   */
  async function guardedEdit(edits: SettingsEdits, why: string): Promise<string[]> {
    const r = need();
    const file = r.settings().file;
    if (!existsSync(file)) {
      throw new AgentError('AGENT_ERR_SETTINGS_UNREADABLE', [
        file,
        'the file is missing; the agent keeps its running settings, and edits wait until the file is back',
      ]);
    }
    // The editor loads on the first edit, not at start.
    const { changedFiles, editSettings } = await import('./settings/store/edit-tree.js');
    // Validate, write through the store, then the reload that applies the write (settings/store/edit-flow.ts):
    // the tree as it will be written is loaded once, by the check, and that reload adopts the load.
    return editThroughStore(r, why, async (problems) => {
      if (problems.length > 0) {
        throw new AgentError('AGENT_ERR_SETTINGS_INVALID', [
          file,
          `${problems.length}; fix the file first: ${problems.map((p) => `line ${p.line}: ${p.message}`).join('; ')}`,
        ]);
      }
      // Each edit goes to the file of the tree that holds its key ([/includes]; one file without them),
      // written only over the content just validated, and only when the whole tree as it would be
      // (every include followed) still validates: an edit never leaves a file broken.
      let checked: ValidLoad | undefined;
      const results = await editSettings(file, edits, {
        expected: r.settings().sources,
        check: async (planned) => {
          checked = await refuseInvalid(file, planned, r.settings());
        },
      });
      const changed = changedFiles(results);
      return changed.length > 0 && checked ? { value: changed, written: checked } : { value: changed };
    });
  }
  const source = new SettingsSource({ settings: () => need().settings(), reload: (why) => need().reload(why) });
  const sourceStatus = (): { source?: SourceStatus } => {
    const st = source.status();
    return st ? { source: st } : {};
  };
  const core = createCore({
    settings: () => need().settings(),
    health: () => {
      const st = need().status();
      return { lastResult: st.lastResult, problems: st.problems, appliedHash: st.appliedHash, source: source.status() };
    },
  });
  // With the folders of includes, as the watcher starts with them: without, the first reload's update dropped them.
  reconciler = new Reconciler({
    initial: snapshot,
    warnings: loaded.warnings,
    watched: loaded.watched,
    core,
    // The control interface is the agent's, built on the reconciler; the module table says which module gets it.
    contextFor: controlFor(control),
    modules: catalogue(),
    ...(options.changes ? { changes: options.changes } : {}),
  });
  const r0 = reconciler;
  // [/settings/log] level applies on every good reload, like every other key; so do the secrets to mask in logs.
  let watcher: SettingsTreeWatcher | undefined;
  reconciler.onReload = () => {
    applyLogSettings(r0.settings().sections['/settings/log']);
    sink.secrets = r0.settings().secretValues;
    source.settingsChanged();
    // Follow the tree: a new include, or one that is gone, good or bad.
    watcher?.update(r0.watched()).catch((err: unknown) => {
      sink.write('error', 'agent:reconciler', `cannot watch the settings files: ${errorMessage(err)}`);
    });
  };
  sink.secrets = snapshot.secretValues;
  for (const w of loaded.warnings)
    sink.write('warning', 'agent:settings', describeProblem(w), { file: w.file, line: w.line });
  // The watcher starts with the modules, not after them: a save while they start is not missed
  // (reloads wait for the start), and the start does not wait for the watcher's scan in turn.
  if (options.watch !== false) {
    prepareSourceFolder(snapshot);
    const r = reconciler;
    watcher = watchSettingsTree(snapshot.file, loaded.watched, (event, kind, untouched) => {
      void r.reload(`file ${event}`, { fileEvent: true, replaced: kind === 'replaced', untouched });
    });
  }
  await Promise.all([reconciler.start(), watcher?.ready]);
  source.start();
  const r = reconciler;
  return {
    ok: true,
    warnings: loaded.warnings,
    agent: {
      core,
      reconciler: r,
      source,
      async stop() {
        source.stop();
        await watcher?.close();
        await r.stop();
      },
    },
  };
}

/**
 * The load of the tree of `main` with the `planned` texts in place of
 * those files, when it is valid. Throw AGENT_ERR_HTTP_UNPROCESSABLE listing the problems when the tree of
 * `main`, with the `planned` texts in place of those files, would not load,
 * or would give a listener TLS files that the running settings did not have
 * a problem with (a key of another certificate, a file that cannot be read
 * or parsed: settings/store/tls-checks.ts).
 */
async function refuseInvalid(
  main: string,
  planned: ReadonlyMap<string, string>,
  current: Snapshot,
): Promise<ValidLoad> {
  const reader = new SettingsReader();
  for (const [file, text] of planned) await reader.source(file, Buffer.from(text, 'utf8'));
  const check = await loadSettingsFile(main, { reader });
  const problems = check.ok ? await newTlsProblems(check.snapshot, current) : check.problems;
  if (check.ok && problems.length === 0) return check;
  const where = (p: SettingsProblem): string =>
    p.file === main ? `line ${p.line}` : `${basename(p.file)} line ${p.line}`;
  const details = problems.map((p) => ({
    field: `[${p.section ?? ''}]${p.key !== undefined ? ` ${p.key}` : ''}`,
    message: `${where(p)}: ${p.code}: ${p.message}`,
  }));
  throw new AgentError('AGENT_ERR_HTTP_UNPROCESSABLE', [], { details });
}

async function newTlsProblems(next: Snapshot, current: Snapshot): Promise<SettingsProblem[]> {
  // Loaded with the editor, on the first edit.
  const { tlsFileProblems } = await import('./settings/store/tls-checks.js');
  const id = (p: SettingsProblem): string => `${p.code} ${p.section ?? ''} ${p.key ?? ''} ${p.message}`;
  const known = new Set(tlsFileProblems(current).map(id));
  return tlsFileProblems(next).filter((p) => !known.has(id(p)));
}

function applyLogSettings(section: Readonly<Record<string, unknown>> | undefined): void {
  const size = Number(section?.['buffer size']);
  if (Number.isInteger(size) && size > 0) sink.capacity = size;
  const level = valueText(section?.level);
  if (process.env.AGENT_LOG_LEVEL === undefined && isLogLevel(level)) sink.consoleLevel = level;
}
