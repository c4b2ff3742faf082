/**
 * A core with the enabled modules started, for one-shot commands (`agent
 * query`, `agent client`). Modules that listen on ports (WEBServer,
 * RemoteServer, AgentServer) are left out unless asked for, so a one-shot
 * command never fights a running agent for its ports.
 */
import { createCore } from '../core/core-impl.js';
import type { Core } from '../core/core.js';
import type { AgentControl } from '../core/control.js';
import { sink } from '../log.js';
import { catalogue, findModule } from '../modules/catalogue.js';
import { ModuleRunner } from '../reconciler/module-runner.js';
import type { Snapshot } from '../settings/snapshot.js';
import { PRODUCT, VERSION } from '../version.js';

export const LISTENING_MODULES = new Set(['WEBServer', 'RemoteServer', 'AgentServer']);

export interface LocalCore {
  core: Core;
  /** Modules that failed to start, with their errors. */
  failed: { name: string; error: string }[];
  stop(): Promise<void>;
}

export async function startLocalCore(snapshot: Snapshot, options: { modules?: string[] } = {}): Promise<LocalCore> {
  const runners: ModuleRunner[] = [];
  const started = new Date().toISOString();
  const notHere = (): never => {
    throw new Error('not available in a one-shot command');
  };
  const control: AgentControl = {
    settings: () => snapshot,
    modules: () => runners.map((r) => ({ name: r.entry.name, title: r.entry.title, description: r.entry.description, loaded: r.loaded, enabled: snapshot.modules[r.entry.name] === true, state: r.state, outcome: r.outcome, drift: false })),
    module: () => undefined,
    load: notHere,
    unload: notHere,
    enable: notHere,
    disable: notHere,
    status: notHere,
    reload: notHere,
    editSettings: notHere,
    logs: (levels) => sink.entries(levels),
    logStatus: () => ({ errors: sink.errors, lastError: sink.lastError }),
    clearLogs: () => sink.clear(),
    info: () => ({ name: PRODUCT, version: VERSION, started, pid: process.pid, settings: snapshot.file }),
  };
  const core = createCore({ settings: () => snapshot, control });
  const wanted = options.modules
    ? options.modules.map((m) => findModule(m)).filter((e) => e !== undefined)
    : catalogue().filter((e) => snapshot.modules[e.name] === true && !LISTENING_MODULES.has(e.name));
  const failed: LocalCore['failed'] = [];
  for (const entry of wanted) {
    const r = new ModuleRunner(entry, core);
    if (await r.start(snapshot)) runners.push(r);
    else failed.push({ name: entry.name, error: r.error ?? 'failed' });
  }
  return {
    core,
    failed,
    async stop() {
      for (const r of runners.reverse()) await r.stop();
    },
  };
}
