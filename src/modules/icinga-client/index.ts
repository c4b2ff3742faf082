/**
 * IcingaClient (NSClient++'s module of that name): results submitted on
 * [/settings/icinga/client] `channel` (default ICINGA) are posted to Icinga
 * 2's process-check-result API (protocols/icinga/client.ts) through the
 * shared passive channel (modules/passive-channel.ts). The service is the
 * submitted command (the schedule's alias; `host_check`: a host check
 * result), the host the submission's sender or `hostname`, the performance
 * data the result's perf items in Nagios form, and check_source the
 * target's `check source` or this machine's name.
 */
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { AgentModule } from '../module.js';
import { passiveChannelModule, HOST_CHECK } from '../passive-channel.js';
import {
  closeIcingaConnections,
  ICINGA_PORT,
  processCheckResult,
  type IcingaEndpoint,
} from '../../protocols/icinga/client.js';
import { splitAddress } from '../../protocols/target-options.js';
import { formatPerf, splitOutput, toNagios } from '../../core/result.js';
import { valueText } from '../../settings/model/value-text.js';
import type { ResolvedObject } from '../../settings/model/snapshot.js';
import { withRetries } from '../../retry-policy.js';
import { CONNECT_RETRY } from '../../protocols/connect-retry.js';

export const agentModule: AgentModule = passiveChannelModule({
  module: 'IcingaClient',
  section: '/settings/icinga/client',
  targetsSection: '/settings/icinga/client/targets',
  queueQuery: {
    name: 'icinga_queue',
    title: 'Icinga 2 send queues',
    description:
      'Per Icinga 2 target: results queued, sent, dropped (queue full) and rejected, consecutive failures and the last error, as a JSON list in the message.',
  },
  // One result per request, and a failed one must not re-send those before it: one per send (the connection is kept alive).
  batch: () => 1,
  send: async (target, items, signal, settings) => {
    const e = await endpointOf(target, settings.hash);
    const source = valueText(target.values['check source']) || hostname();
    const retryable = (err: unknown): boolean => !(err as { permanent?: boolean }).permanent;
    for (const i of items) {
      // As NSClient++: the Nagios text split at its first |, so a message that carries perf data itself is split too.
      const { message, perf } = splitOutput(toNagios(i.result));
      const r = {
        host: i.host,
        service: i.service === HOST_CHECK ? '' : i.service,
        exitStatus: i.result.result,
        output: message,
        performanceData: perf.map(formatPerf),
        checkSource: source,
      };
      await withRetries(() => processCheckResult(e, r, signal), {
        retries: Number(target.values.retries),
        policy: CONNECT_RETRY,
        retryable,
        signal,
      });
    }
  },
  stopped: closeIcingaConnections,
});

/** CA files read, by settings hash and path: read once per settings version, not per result. */
const caTexts = new Map<string, Promise<string>>();

async function caText(file: string, version: string): Promise<string> {
  const key = `${version}\0${file}`;
  let text = caTexts.get(key);
  if (!text) {
    if (caTexts.size > 16) caTexts.clear();
    text = readFile(file, 'utf8');
    caTexts.set(key, text);
    // A failed read is tried again at the next send.
    text.catch(() => caTexts.delete(key));
  }
  return text;
}

async function endpointOf(t: ResolvedObject, version: string): Promise<IcingaEndpoint> {
  const v = t.values;
  const fromAddress = splitAddress(valueText(v.address));
  const host = fromAddress.host || valueText(v.host);
  if (host === '') throw new Error(`target ${t.name} has no address`);
  const caFile = valueText(v.ca);
  return {
    host,
    port: fromAddress.port || Number(v.port) || ICINGA_PORT,
    user: valueText(v.username),
    password: valueText(v.password),
    ca: caFile === '' ? undefined : await caText(caFile, version),
    serverName: valueText(v['server name']) || undefined,
    timeoutMs: Number(v.timeout) * 1000,
  };
}
