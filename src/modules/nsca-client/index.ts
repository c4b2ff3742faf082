/**
 * NSCAClient: results submitted on [/settings/NSCA/client] `channel`
 * (default NSCA) are sent to an NSCA 2.x daemon as send_nsca sends them
 * (protocols/nsca/), through the shared passive channel
 * (modules/passive-channel.ts: per-target queue, backoff, nothing blocks).
 * The service description is the submitted command (the schedule's alias),
 * the host name the submission's sender or `hostname`; the alias
 * `host_check` makes it a host check result, as in NSClient++, with the
 * code a host takes (core/result.ts hostState: OK is UP, anything else
 * DOWN; CRITICAL stays UNREACHABLE with the target's `host unreachable`),
 * where NSClient++ forwards the plugin code, which Icinga 2 refuses for a
 * host beyond 1. Output longer than the
 * target's `payload length` less one byte is cut, as send_nsca cuts it.
 */
import type { AgentModule } from '../module.js';
import { passiveChannelModule, HOST_CHECK } from '../passive-channel.js';
import { sendNsca } from '../../protocols/nsca/client.js';
import { nscaMethod } from '../../formats/nsca-encryption.js';
import { NSCA_PORT } from '../../protocols/nsca/packet.js';
import { splitAddress } from '../../protocols/target-options.js';
import { hostState, toNagios } from '../../core/result.js';
import { valueText } from '../../settings/model/value-text.js';
import type { ResolvedObject } from '../../settings/model/snapshot.js';
import { withRetries } from '../../retry-policy.js';
import { CONNECT_RETRY } from '../../protocols/connect-retry.js';

export const agentModule: AgentModule = passiveChannelModule({
  module: 'NSCAClient',
  section: '/settings/NSCA/client',
  targetsSection: '/settings/NSCA/client/targets',
  queueQuery: {
    name: 'nsca_queue',
    title: 'NSCA send queues',
    description:
      'Per NSCA target: results queued, sent, dropped (queue full) and rejected, consecutive failures and the last error, as a JSON list in the message.',
  },
  // nsca 2.9+ takes several packets on one connection only at the 4096-byte payload (protocols/nsca/client.ts).
  batch: (t) => (Number(t.values['payload length']) === 4096 ? 100 : 1),
  // Results that come within 50 ms share a connection (a scheduler with many schedules sends in bursts).
  lingerMs: 50,
  send: async (target, items, signal) => {
    const o = connectionOf(target, signal);
    const unreachable = target.values['host unreachable'] === true;
    const packets = items.map((i) => ({
      host: i.host,
      service: i.service === HOST_CHECK ? '' : i.service,
      code: i.service === HOST_CHECK ? hostState(i.result.result, unreachable) : i.result.result,
      output: toNagios(i.result),
    }));
    await withRetries(() => sendNsca(o, packets), {
      retries: Number(target.values.retries),
      policy: CONNECT_RETRY,
      retryable: () => true,
      signal,
      deadline: performance.now() + o.timeoutMs,
    });
  },
});

function connectionOf(t: ResolvedObject, signal: AbortSignal): Parameters<typeof sendNsca>[0] {
  const v = t.values;
  const fromAddress = splitAddress(valueText(v.address));
  const host = fromAddress.host || valueText(v.host);
  if (host === '') throw new Error(`target ${t.name} has no address`);
  const method = nscaMethod(valueText(v.encryption, 'aes'));
  if (method === undefined) throw new Error(`target ${t.name}: encryption ${valueText(v.encryption)} is not supported`);
  return {
    host,
    port: fromAddress.port || Number(v.port) || NSCA_PORT,
    method,
    password: valueText(v.password),
    payloadLength: Number(v['payload length']),
    timeoutMs: Number(v.timeout) * 1000,
    timeOffset: Number(v['time offset']),
    signal,
  };
}
