/**
 * What RemoteClient and AgentClient share: their client queries (remote_*,
 * agent_*), each run on the settings in force until its caller goes or the
 * module stops, and the channel their section names (`channel`), each
 * submission on which goes to the target its `target` key names, merged
 * with the settings in force when the submission comes; a changed
 * `channel` subscribes anew.
 */
import type { ModuleContext } from './module.js';
import type { ResolvedObject } from '../settings/model/snapshot.js';
import { decode, responseToResult } from '../core/plugin/codec.js';
import type { QueryResult } from '../core/result.js';
import { mergeTarget, type ConnectionSettings } from '../protocols/target-options.js';
import type { QueryKind } from '../protocols/client-option-table.js';
import { withLinkedSignal } from '../abort-link.js';

/** The settings view of a client module: its targets. */
interface ClientView {
  readonly targets: ReadonlyMap<string, ResolvedObject>;
}

interface ClientQuery {
  name: string;
  kind: QueryKind;
  title: string;
  description: string;
}

export interface ClientSpec<S extends ClientView> {
  module: string;
  queries: readonly ClientQuery[];
  /** Runs query `q` on the settings `view`. */
  run(q: ClientQuery, args: readonly string[], view: S, signal: AbortSignal): Promise<QueryResult>;
  /** The module's section's `channel` and `target`. */
  section(view: S): { channel: string; target: string };
  /** The targets' section, for messages. */
  container: string;
  defaultPort: number;
  /** Sends one submission's results to `target` (its settings merged); rejects, naming `targetName`, when they were not taken. */
  forward(target: ConnectionSettings, results: QueryResult[], view: S, targetName: string): Promise<void>;
}

export interface ClientChannel<S> {
  /** New settings: the queries and submissions from now on read them; a changed `channel` subscribes anew. */
  update(next: S): void;
  /** Unsubscribes and unregisters the queries. */
  close(): void;
}

export function clientChannel<S extends ClientView>(ctx: ModuleContext<S>, spec: ClientSpec<S>): ClientChannel<S> {
  let view = ctx.settings;
  const queries = spec.queries.map((q) =>
    ctx.core.registerSimpleQuery(
      { name: q.name, module: spec.module, title: q.title, description: q.description },
      (args, call) => withLinkedSignal([call.signal, ctx.signal], (signal) => spec.run(q, args, view, signal)),
    ),
  );
  const subscribe = (): (() => void) => {
    const channel = spec.section(view).channel;
    return ctx.core.subscribe(channel, spec.module, async (message) => {
      const current = view;
      const target = spec.section(current).target;
      const merged = mergeTarget(
        { targets: current.targets, container: spec.container, defaultPort: spec.defaultPort },
        { target, arguments: [], positional: [] },
      );
      if (!merged.ok) throw new Error(`cannot forward submissions on channel ${channel}: ${merged.problem}`);
      const results = decode('SubmitResponseMessage', message).payload.map(responseToResult);
      await spec.forward(merged.settings, results, current, target);
    });
  };
  let unsubscribe = subscribe();
  return {
    update(next) {
      const before = spec.section(view).channel;
      view = next;
      if (spec.section(next).channel === before) return;
      unsubscribe();
      unsubscribe = subscribe();
    },
    close() {
      unsubscribe();
      for (const q of queries.splice(0)) q();
    },
  };
}
