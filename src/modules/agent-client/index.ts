/**
 * AgentClient: the agent_query, agent_exec and agent_submit queries over
 * the agent protocol, and the channel of [/settings/agent/client]
 * (`channel`, default AGENT): every result submitted on it is sent to the
 * target named by the section's `target` key (default `default`).
 * Connections are pooled per host, port and TLS settings and reused
 * between queries; the pool closes when the module stops.
 */
import type { AgentModule } from '../module.js';
import type { SettingsOf } from '../../settings/model/module-table.js';
import { clientChannel } from '../client-channel.js';
import { AgentClientPool } from '../../protocols/agent/client.js';
import { errorMessage } from '../../errors.js';
import { AGENT_PORT, AGENT_QUERIES, TARGETS_PATH, forwardResults, runAgentQuery } from './agent-query.js';

const SECTION = '/settings/agent/client';

type Settings = SettingsOf<'AgentClient'>;

export const agentModule: AgentModule<Settings> = {
  name: 'AgentClient',
  async start(ctx) {
    let snapshot = ctx.settings;
    let pool = new AgentClientPool();
    const client = clientChannel(ctx, {
      module: 'AgentClient',
      queries: AGENT_QUERIES,
      run: (q, args, view, signal) => runAgentQuery(pool, q.name, q.kind, args, view, signal),
      section: (view) => view.sections[SECTION],
      container: TARGETS_PATH,
      defaultPort: AGENT_PORT,
      forward: async (target, results, _view, targetName) => {
        const names = results.map((r) => r.command).join(', ');
        try {
          await forwardResults(pool, target, results, ctx.signal);
          ctx.log.debug(`forwarded ${names} to ${target.host}:${target.port}`);
        } catch (err) {
          throw new Error(`forwarding ${names} to target ${targetName} failed: ${errorMessage(err)}`, { cause: err });
        }
      },
    });
    return {
      async apply(next) {
        // Changed targets may name new certificate files: start from fresh connections.
        if (targetsKey(next) !== targetsKey(snapshot)) {
          const old = pool;
          pool = new AgentClientPool();
          void old.close();
        }
        snapshot = next;
        client.update(next);
        return true;
      },
      async stop() {
        client.close();
        await pool.close();
      },
    };
  },
};

// ---------------------------------------------------------------- helpers

function targetsKey(view: Settings): string {
  return JSON.stringify([...view.targets.entries()].map(([name, t]) => [name, t.values]));
}
