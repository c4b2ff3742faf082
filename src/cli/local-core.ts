/**
 * A core with the enabled modules started, for one-shot commands (`agent
 * query`, `config-agent client`). Modules that listen on ports (WEBServer,
 * RemoteServer, AgentServer, NSClientServer) are left out unless asked for, so a one-shot
 * command never fights a running agent for its ports; nor does the
 * Scheduler (BACKGROUND_MODULES), so that it never sends passive results
 * twice. No module gets the
 * control interface here (there is no reconciler to control), so WEBServer,
 * the one module that needs it, cannot start in a one-shot core (no
 * command asks for it).
 */
import { createCore } from '../core/core-impl.js';
import type { Core } from '../core/core.js';
import { catalogue, findModule } from '../modules/catalogue.js';
import { ModuleRunner } from '../reconciler/module-runner.js';
import type { Snapshot } from '../settings/model/snapshot.js';
import { moduleTable } from '../settings/model/module-table.js';

/** The listening modules (the module table's listener column). */
export const LISTENING_MODULES: ReadonlySet<string> = new Set(
  moduleTable()
    .filter((m) => m.listener !== undefined)
    .map((m) => m.name),
);
/** Modules that act on their own (the background column): the Scheduler would run its checks and send them from a one-shot command, beside the running agent. */
export const BACKGROUND_MODULES: ReadonlySet<string> = new Set(
  moduleTable()
    .filter((m) => m.background === true)
    .map((m) => m.name),
);

export interface LocalCore {
  core: Core;
  /** Modules that failed to start, with their errors. */
  failed: { name: string; error: string }[];
  stop(): Promise<void>;
}

export async function startLocalCore(snapshot: Snapshot, options: { modules?: string[] } = {}): Promise<LocalCore> {
  const runners: ModuleRunner[] = [];
  const core = createCore({ settings: () => snapshot });
  const wanted = options.modules
    ? options.modules.map((m) => findModule(m)).filter((e) => e !== undefined)
    : catalogue().filter(
        (e) => snapshot.modules[e.name] === true && !LISTENING_MODULES.has(e.name) && !BACKGROUND_MODULES.has(e.name),
      );
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
