/**
 * RemoteClient: the remote_query, remote_exec, remote_submit and
 * remote_forward queries (NRPE client), and the channel of
 * [/settings/remote/client] (`channel`, default REMOTE): every result
 * submitted on it is sent with remote_submit's wire form to the target named
 * by the section's `target` key (default `default`).
 */
import type { AgentModule } from '../module.js';
import type { SettingsOf } from '../../settings/model/module-table.js';
import { clientChannel } from '../client-channel.js';
import { errorMessage } from '../../errors.js';
import { REMOTE_PORT, REMOTE_QUERIES, TARGETS_PATH, runRemoteQuery, submitResult } from './remote-query.js';

const SECTION = '/settings/remote/client';

type Settings = SettingsOf<'RemoteClient'>;

export const agentModule: AgentModule<Settings> = {
  name: 'RemoteClient',
  async start(ctx) {
    const client = clientChannel(ctx, {
      module: 'RemoteClient',
      queries: REMOTE_QUERIES,
      run: (q, args, view, signal) => runRemoteQuery(q.name, q.kind, args, view, signal),
      section: (view) => view.sections[SECTION],
      container: TARGETS_PATH,
      defaultPort: REMOTE_PORT,
      forward: async (target, results, view, targetName) => {
        for (const result of results) {
          try {
            const answer = await submitResult(target, result, ctx.signal, view.hash);
            ctx.log.debug(`submitted ${result.command} to ${target.host}:${target.port}: ${answer.message}`);
          } catch (err) {
            throw new Error(`submitting ${result.command} to target ${targetName} failed: ${errorMessage(err)}`, {
              cause: err,
            });
          }
        }
      },
    });
    return {
      async apply(next) {
        client.update(next);
        return true;
      },
      async stop() {
        client.close();
      },
    };
  },
};
