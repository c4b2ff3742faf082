/**
 * RemoteClient: the remote_query, remote_exec, remote_submit and
 * remote_forward queries (NRPE client), and the channel of
 * [/settings/remote/client] (`channel`, default REMOTE): every result
 * submitted on it is sent with remote_submit's wire form to the target named
 * by the section's `target` key (default `default`).
 */
import type { AgentModule, ModuleContext } from '../module.js';
import type { SettingsOf } from '../../settings/module-table.js';
import { decode, responseToResult } from '../../core/plugin/codec.js';
import { mergeTarget } from '../../protocols/target-options.js';
import { errorMessage } from '../../errors.js';
import { REMOTE_PORT, REMOTE_QUERIES, TARGETS_PATH, runRemoteQuery, submitResult } from './remote-query.js';
import { withLinkedSignal } from '../../abort-link.js';

const SECTION = '/settings/remote/client';

type Settings = SettingsOf<'RemoteClient'>;

export function createModule(): AgentModule<Settings> {
  let snapshot: Settings | undefined;
  let ctx: ModuleContext<Settings> | undefined;
  const cleanup: (() => void)[] = [];

  const subscribe = (): void => {
    const channel = snapshot!.sections[SECTION].channel;
    cleanup.push(
      ctx!.core.subscribe(channel, 'RemoteClient', async (message) => {
        const current = snapshot!;
        const target = current.sections[SECTION].target;
        const merged = mergeTarget(
          { targets: current.targets, container: TARGETS_PATH, defaultPort: REMOTE_PORT },
          { target, arguments: [], positional: [] },
        );
        if (!merged.ok) throw new Error(`cannot forward submissions on channel ${channel}: ${merged.problem}`);
        const decoded = decode('SubmitResponseMessage', message);
        for (const payload of decoded.payload) {
          const result = responseToResult(payload);
          try {
            const answer = await submitResult(merged.settings, result, ctx!.signal, current.hash);
            ctx!.log.debug(
              `submitted ${result.command} to ${merged.settings.host}:${merged.settings.port}: ${answer.message}`,
            );
          } catch (err) {
            throw new Error(`submitting ${result.command} to target ${target} failed: ${errorMessage(err)}`, {
              cause: err,
            });
          }
        }
      }),
    );
  };

  return {
    name: 'RemoteClient',
    async start(context) {
      ctx = context;
      snapshot = context.settings;
      for (const q of REMOTE_QUERIES) {
        cleanup.push(
          context.core.registerSimpleQuery(
            { name: q.name, module: 'RemoteClient', title: q.title, description: q.description },
            (args, call) =>
              withLinkedSignal([call.signal, context.signal], (signal) =>
                runRemoteQuery(q.name, q.kind, args, snapshot!, signal),
              ),
          ),
        );
      }
      subscribe();
    },
    async apply(next) {
      const before = snapshot!.sections[SECTION].channel;
      snapshot = next;
      if (next.sections[SECTION].channel !== before) {
        cleanup.pop()?.();
        subscribe();
      }
      return true;
    },
    async stop() {
      for (const c of cleanup.splice(0)) c();
    },
  };
}
