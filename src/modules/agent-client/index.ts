/**
 * AgentClient: the agent_query, agent_exec and agent_submit queries over
 * the agent protocol, and the channel of [/settings/agent/client]
 * (`channel`, default AGENT): every result submitted on it is sent to the
 * target named by the section's `target` key (default `default`).
 * Connections are pooled per host, port and TLS settings and reused
 * between queries; the pool closes when the module stops.
 */
import type { AgentModule, ModuleContext } from '../module.js';
import type { SettingsOf } from '../../settings/module-table.js';
import { decode, responseToResult } from '../../core/plugin/codec.js';
import { mergeTarget } from '../../protocols/target-options.js';
import { AgentClientPool } from '../../protocols/agent/client.js';
import { errorMessage } from '../../errors.js';
import { AGENT_PORT, AGENT_QUERIES, TARGETS_PATH, forwardResults, runAgentQuery } from './agent-query.js';
import { withLinkedSignal } from '../../abort-link.js';

const SECTION = '/settings/agent/client';

type Settings = SettingsOf<'AgentClient'>;

export function createModule(): AgentModule<Settings> {
  let snapshot: Settings | undefined;
  let ctx: ModuleContext<Settings> | undefined;
  let pool = new AgentClientPool();
  const cleanup: (() => void)[] = [];
  let unsubscribe: (() => void) | undefined;

  const subscribe = (): void => {
    const channel = snapshot!.sections[SECTION].channel;
    unsubscribe = ctx!.core.subscribe(channel, 'AgentClient', async (message) => {
      const current = snapshot!;
      const target = current.sections[SECTION].target;
      const merged = mergeTarget(
        { targets: current.targets, container: TARGETS_PATH, defaultPort: AGENT_PORT },
        { target, arguments: [], positional: [] },
      );
      if (!merged.ok) throw new Error(`cannot forward submissions on channel ${channel}: ${merged.problem}`);
      const results = decode('SubmitResponseMessage', message).payload.map(responseToResult);
      try {
        await forwardResults(pool, merged.settings, results, ctx!.signal);
        ctx!.log.debug(
          `forwarded ${results.map((r) => r.command).join(', ')} to ${merged.settings.host}:${merged.settings.port}`,
        );
      } catch (err) {
        throw new Error(
          `forwarding ${results.map((r) => r.command).join(', ')} to target ${target} failed: ${errorMessage(err)}`,
          { cause: err },
        );
      }
    });
  };

  return {
    name: 'AgentClient',
    async start(context) {
      ctx = context;
      snapshot = context.settings;
      pool = new AgentClientPool();
      for (const q of AGENT_QUERIES) {
        cleanup.push(
          context.core.registerSimpleQuery(
            { name: q.name, module: 'AgentClient', title: q.title, description: q.description },
            (args, call) =>
              withLinkedSignal([call.signal, context.signal], (signal) =>
                runAgentQuery(pool, q.name, q.kind, args, snapshot!, signal),
              ),
          ),
        );
      }
      subscribe();
    },
    async apply(next) {
      const before = snapshot!.sections[SECTION].channel;
      // Changed targets may name new certificate files: start from fresh connections.
      if (targetsKey(next) !== targetsKey(snapshot!)) {
        const old = pool;
        pool = new AgentClientPool();
        void old.close();
      }
      snapshot = next;
      if (next.sections[SECTION].channel !== before) {
        unsubscribe?.();
        subscribe();
      }
      return true;
    },
    async stop() {
      unsubscribe?.();
      unsubscribe = undefined;
      for (const c of cleanup.splice(0)) c();
      await pool.close();
    },
  };
}

// ---------------------------------------------------------------- helpers

function targetsKey(view: Settings): string {
  return JSON.stringify([...view.targets.entries()].map(([name, t]) => [name, t.values]));
}
