/**
 * The three agent_* client queries: option parsing (shared table), target
 * merge (explicit options win over the target, which wins over defaults),
 * and the exchange over the pooled agent-protocol client.
 *
 * - agent_query: runs --command with --arguments as a query on the peer;
 *   status, message and perf data are the peer's.
 * - agent_exec: runs --command as an exec command on the peer; status and
 *   message are the peer's.
 * - agent_submit: hands the passive result --alias/--command, --result,
 *   --message (`text|perf` allowed) to the peer; the status is the peer's
 *   acknowledgement (OK when accepted).
 * Every failure is an UNKNOWN result whose message says what happened.
 */
import { hostname } from 'node:os';
import { splitOutput, toStatus, unknown, type QueryResult } from '../../core/result.js';
import { errorMessage } from '../../errors.js';
import type { SettingsOf } from '../../settings/model/module-table.js';
import type { QueryKind } from '../../protocols/client-option-table.js';
import { prepareClientQuery, type ConnectionSettings } from '../../protocols/target-options.js';
import { AgentClientPool, type AgentEndpoint, type RequestOptions } from '../../protocols/agent/client.js';
import { agentClientTls } from '../../protocols/agent/tls.js';
import { resultToResponse, responseToResult } from '../../core/plugin/codec.js';

import { AGENT_PORT } from '../../protocols/agent/framing.js';
export { AGENT_PORT };
export const TARGETS_PATH = '/settings/agent/client/targets';

export const AGENT_QUERIES: readonly { name: string; kind: QueryKind; title: string; description: string }[] = [
  {
    name: 'agent_query',
    kind: 'query',
    title: 'Query another agent',
    description: 'Runs --command with --arguments as a query on another agent (agent protocol) and returns its result.',
  },
  {
    name: 'agent_exec',
    kind: 'exec',
    title: 'Execute on another agent',
    description:
      'Runs --command with --arguments as an exec command on another agent and returns its status and message.',
  },
  {
    name: 'agent_submit',
    kind: 'submit',
    title: 'Submit a passive result to another agent',
    description:
      'Hands --alias, --result and --message to another agent, which keeps the latest result per command and source.',
  },
];

/** Runs one agent_* query; never rejects. */
export async function runAgentQuery(
  pool: AgentClientPool,
  name: string,
  kind: QueryKind,
  args: readonly string[],
  settings: Pick<SettingsOf<'AgentClient'>, 'targets'>,
  signal?: AbortSignal,
): Promise<QueryResult> {
  const prepared = prepareClientQuery(name, kind, 'agent', args, {
    targets: settings.targets,
    container: TARGETS_PATH,
    defaultPort: AGENT_PORT,
  });
  if (!prepared.ok) return prepared.answer;
  const { options: o, settings: s } = prepared;
  const command = o.command ?? (kind === 'submit' ? s.alias : '');
  if (!command) {
    return unknown(
      name,
      `${name}: ${kind === 'submit' ? 'a submission needs --alias (or --command) naming the service' : 'give --command naming what the peer runs'}`,
    );
  }
  const endpoint = endpointOf(s);
  const options = requestOptionsOf(s, signal);
  try {
    if (kind === 'exec') {
      const answer = await pool.exec(endpoint, [{ command, arguments: o.arguments }], options);
      const first = answer.payload[0];
      if (!first) return unknown(name, `${name}: ${s.host}:${s.port} answered no result`);
      return { command: name, result: toStatus(first.result), message: first.message, perf: [] };
    }
    if (kind === 'submit') {
      const text = splitOutput(o.message ?? '');
      const result: QueryResult = { command, result: o.result ?? 0, message: text.message, perf: text.perf };
      const ack = await pool.submit(endpoint, [resultToResponse(result)], {
        ...options,
        sender: s.alias || hostname(),
      });
      const first = ack.payload[0];
      if (!first) return unknown(name, `${name}: ${s.host}:${s.port} acknowledged nothing`);
      return {
        command: name,
        result: toStatus(first.result),
        message: `${s.host}:${s.port}: ${first.message}`,
        perf: [],
      };
    }
    const answer = await pool.query(endpoint, [{ command, arguments: o.arguments }], options);
    const first = answer.payload[0];
    if (!first) return unknown(name, `${name}: ${s.host}:${s.port} answered no result`);
    const r = responseToResult(first);
    return { command: name, result: r.result, message: r.message, perf: r.perf };
  } catch (err) {
    return unknown(name, `${name}: ${errorMessage(err)}`);
  }
}

/** Sends results submitted on the channel to a merged connection; rejects with what went wrong. */
export async function forwardResults(
  pool: AgentClientPool,
  s: ConnectionSettings,
  results: QueryResult[],
  signal?: AbortSignal,
): Promise<void> {
  await pool.submit(
    endpointOf(s),
    results.map((r) => resultToResponse(r)),
    { ...requestOptionsOf(s, signal), sender: s.alias || hostname() },
  );
}

export function endpointOf(s: ConnectionSettings): AgentEndpoint {
  if (!s.ssl) return { host: s.host, port: s.port };
  const tls = agentClientTls({
    allowedCiphers: s.allowedCiphers,
    certificate: s.certificate,
    certificateKey: s.certificateKey,
    certificateFormat: s.certificateFormat,
    ca: s.ca,
    verifyMode: s.verifyMode,
  });
  return { host: s.host, port: s.port, tls: tls.build, tlsKey: tls.key };
}

function requestOptionsOf(s: ConnectionSettings, signal: AbortSignal | undefined): RequestOptions {
  return { timeoutMs: s.timeout * 1000, retry: s.retry, ...(signal ? { signal } : {}) };
}
