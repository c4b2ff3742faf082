/**
 * What NSCAClient and IcingaClient share: a channel subscription that
 * turns each submitted result into a queued item for one target and
 * returns at once (the Scheduler and agent_submit never wait for a
 * server), one PassiveQueue per target (protocols/passive-queue.ts:
 * bounded, oldest dropped and counted, retried with backoff), and a
 * `<module>_queue` query answering the queues' counters as JSON.
 *
 * The submission's header names the target (`recipient`, the schedule's
 * `target`; empty: `default`) and the host (`sender`, the schedule's
 * `source`; empty: the section's `hostname`, `auto` being this machine's
 * name). Each send reads the target's settings in force at that moment,
 * so an edited password or address applies to what is still queued.
 *
 * A send that fails because the server refused the result for good (an
 * unknown Icinga 2 object, a wrong password: `permanent` on the error) drops
 * that batch and counts it once, as rejected (not as sent), with the
 * server's answer as the queue's last error, instead of retrying it forever.
 */
import { hostname } from 'node:os';
import type { AgentModule, ModuleContext, RunningModule } from './module.js';
import type { ModuleSettings } from '../settings/model/module-view.js';
import type { ResolvedObject } from '../settings/model/snapshot.js';
import { decode, responseToResult } from '../core/plugin/codec.js';
import type { QueryResult } from '../core/result.js';
import { PassiveQueue, type PassiveQueueStats } from '../protocols/passive-queue.js';
import type { BackoffPolicy } from '../retry-policy.js';
import { errorMessage } from '../errors.js';
import { valueText } from '../settings/model/value-text.js';
import { countQueue, watchQueue } from '../core/passive-counters.js';
import { WarningThrottle } from '../log-throttle.js';

/** The alias that makes a result a host check result (NSClient++'s NSCAClient and IcingaClient). */
export const HOST_CHECK = 'host_check';

export interface PassiveItem {
  host: string;
  /** The submitted command: the service, or HOST_CHECK. */
  service: string;
  result: QueryResult;
}

export interface PassiveChannelSpec {
  module: string;
  /** The module's own section: channel, hostname, queue size. */
  section: string;
  /** Section of its targets, for messages. */
  targetsSection: string;
  queueQuery: { name: string; title: string; description: string };
  /** Results per send to this target. */
  batch(target: ResolvedObject): number;
  /** Milliseconds a batch that is not full waits for more results (PassiveQueue lingerMs). */
  lingerMs?: number;
  /** Sends a batch to a target; rejects when it was not taken (`permanent: true` on the error: never will be). */
  send(
    target: ResolvedObject,
    items: readonly PassiveItem[],
    signal: AbortSignal,
    settings: ModuleSettings,
  ): Promise<void>;
  /** After the module stopped and its queues closed: let go of what its sends share (IcingaClient's kept-alive connections). */
  stopped?(): void;
}

/** Waits between attempts to reach a server: 1 s doubling to 60 s, with up to a quarter more at random. */
export const PASSIVE_RETRY: BackoffPolicy = { firstMs: 1000, factor: 2, maxMs: 60_000, jitter: 0.25 };

interface Section {
  channel: string;
  hostname: string;
  'queue size': number;
}

/** The module `spec` describes, as a value (module.ts). */
export function passiveChannelModule(spec: PassiveChannelSpec): AgentModule {
  return { name: spec.module, start: (ctx) => startChannel(spec, ctx) };
}

// long function: the channel's queues, subscription and query share the settings in force in one closure
async function startChannel(spec: PassiveChannelSpec, ctx: ModuleContext): Promise<RunningModule> {
  let settings = ctx.settings;
  const queues = new Map<string, { queue: PassiveQueue<PassiveItem>; unwatch?: () => void }>();
  const drops = new WarningThrottle();
  const section = (): Section =>
    settings.sections[spec.section as keyof ModuleSettings['sections']] as unknown as Section;

  const findTarget = (name: string): ResolvedObject | undefined => {
    const lower = name.toLowerCase();
    for (const t of settings.targets.values()) if (t.name.toLowerCase() === lower) return t;
    return undefined;
  };

  const queueOf = (targetName: string): PassiveQueue<PassiveItem> => {
    const key = targetName.toLowerCase();
    let entry = queues.get(key);
    if (!entry) {
      const made: { queue: PassiveQueue<PassiveItem>; unwatch?: () => void } = {
        queue: new PassiveQueue<PassiveItem>(queueOptions(targetName)),
      };
      made.unwatch = watchQueue(spec.module, targetName, () => made.queue.stats().queued);
      queues.set(key, (entry = made));
    }
    return entry.queue;
  };

  const queueOptions = (targetName: string): ConstructorParameters<typeof PassiveQueue<PassiveItem>>[0] => ({
    capacity: section()['queue size'],
    batch: batchOf(targetName),
    lingerMs: batchOf(targetName) > 1 ? (spec.lingerMs ?? 0) : 0,
    policy: PASSIVE_RETRY,
    send: async (items, signal) => {
      const target = findTarget(targetName);
      if (!target) throw new Error(`target "${targetName}" is not defined in [${spec.targetsSection}]`);
      await spec.send(target, items, signal, settings);
      countQueue(spec.module, targetName, 'sent', items.length);
      ctx.log.debug(`sent ${items.length} result(s) to target ${targetName}`);
    },
    onReject: (err, count) => {
      countQueue(spec.module, targetName, 'rejected', count);
      ctx.log.error(`${count} result(s) for target ${targetName} refused: ${errorMessage(err)}`);
    },
    onDrop: (now, total) => {
      countQueue(spec.module, targetName, 'dropped', now);
      // One line a minute per target, with the count of the others (log-throttle.ts): a flood of results must not flood the log.
      drops.warn(
        ctx.log,
        'dropped',
        targetName,
        `AGENT_WARN_PASSIVE_DROPPED: target ${targetName}: the queue of unsent results is full (${section()['queue size']}); dropped the oldest (${total} dropped so far, ${now} now)`,
      );
    },
    onFailure: (err, wait) =>
      ctx.log.error(
        `sending to target ${targetName} failed, next attempt in ${Math.round(wait / 100) / 10} s: ${errorMessage(err)}`,
      ),
    onRecovered: () => ctx.log.info(`target ${targetName} takes results again`),
  });

  const batchOf = (targetName: string): number => {
    const t = findTarget(targetName);
    return t ? spec.batch(t) : 1;
  };

  const subscribe = (): (() => void) =>
    ctx.core.subscribe(section().channel, spec.module, async (message) => {
      const decoded = decode('SubmitResponseMessage', message);
      const targetName = decoded.header.recipient || 'default';
      if (!findTarget(targetName)) throw new Error(`target "${targetName}" is not defined in [${spec.targetsSection}]`);
      const host = decoded.header.sender || ownHostName(section().hostname);
      queueOf(targetName).push(decoded.payload.map((p) => ({ host, service: p.command, result: responseToResult(p) })));
    });

  let unsubscribe = subscribe();
  const unregister = ctx.core.registerSimpleQuery(
    {
      name: spec.queueQuery.name,
      module: spec.module,
      title: spec.queueQuery.title,
      description: spec.queueQuery.description,
    },
    async () => ({
      result: 0,
      message: JSON.stringify(
        [...queues.entries()].map(([name, e]) => ({
          target: name,
          ...statsJson(e.queue.stats()),
        })),
      ),
      perf: [],
    }),
  );
  return {
    async apply(next) {
      const before = section().channel;
      settings = next;
      if (section().channel !== before) {
        unsubscribe();
        unsubscribe = subscribe();
      }
      for (const [name, e] of queues) e.queue.reconfigure(queueOptions(name));
      return true;
    },
    async stop() {
      unsubscribe();
      unregister();
      for (const e of queues.values()) e.unwatch?.();
      await Promise.all([...queues.values()].map((e) => e.queue.close()));
      queues.clear();
      spec.stopped?.();
    },
  };
}

/** `auto` (this machine's name), `auto-lc`, `auto-uc`, or the name as written. */
export function ownHostName(setting: unknown): string {
  const text = valueText(setting, 'auto').trim();
  const lower = text.toLowerCase();
  if (lower === 'auto' || lower === '') return hostname();
  if (lower === 'auto-lc') return hostname().toLowerCase();
  if (lower === 'auto-uc') return hostname().toUpperCase();
  return text;
}

function statsJson(s: PassiveQueueStats): Record<string, unknown> {
  return {
    queued: s.queued,
    sent: s.sent,
    dropped: s.dropped,
    rejected: s.rejected,
    failures: s.failures,
    last_error: s.lastError,
  };
}
