/**
 * The four remote_* client queries: option parsing, target merge, the NRPE
 * exchange, and what each query means on the wire.
 *
 * - remote_query: sends `command!arg!arg` (`_NRPE_CHECK` without a command);
 *   the answer's code is the status, its text is split into message|perf.
 * - remote_exec: sends the same request; the status is the answer's code and
 *   the message the whole text (no perf split), as NRPE has no separate exec.
 * - remote_submit: hands a passive result to the peer as the request
 *   `_NRPE_SUBMIT!<alias>!<code>!<message>`; our RemoteServer takes it when
 *   its `submit channel` is set. The status is the peer's answer.
 * - remote_forward: the bare arguments after the options are the request
 *   as-is (`remote_forward --host h check_cpu warn=80` sends
 *   `check_cpu!warn=80`); the answer is relayed like remote_query.
 * Every failure is an UNKNOWN result saying what happened; nothing throws.
 */
import { splitOutput, toNagios, toStatus, unknown, type QueryResult } from '../../core/result.js';
import { errorMessage } from '../../errors.js';
import type { SettingsOf } from '../../settings/model/module-table.js';
import type { ClientOptions, QueryKind } from '../../protocols/client-option-table.js';
import { prepareClientQuery, type ConnectionSettings } from '../../protocols/target-options.js';
import { nrpeRequest } from '../../protocols/nrpe/client.js';
import { formatRequest, NRPE_PORT, NRPE_SUBMIT_COMMAND } from '../../protocols/nrpe/packet.js';
import { buildClientTls } from '../../protocols/nrpe/tls.js';
import { cachedClientTls } from '../../protocols/client-tls-cache.js';

export const REMOTE_PORT = NRPE_PORT;
export const TARGETS_PATH = '/settings/remote/client/targets';
/** The request that carries a passive result (see remote_submit). */
const SUBMIT_COMMAND = NRPE_SUBMIT_COMMAND;

export const REMOTE_QUERIES: readonly { name: string; kind: QueryKind; title: string; description: string }[] = [
  {
    name: 'remote_query',
    kind: 'query',
    title: 'Query a remote NRPE server',
    description: 'Runs --command with --arguments on an NRPE server (check_nrpe) and returns its result.',
  },
  {
    name: 'remote_exec',
    kind: 'exec',
    title: 'Execute on a remote NRPE server',
    description: 'Runs --command on an NRPE server and returns its status and whole output.',
  },
  {
    name: 'remote_submit',
    kind: 'submit',
    title: 'Submit a passive result',
    description: 'Sends --alias, --result and --message to an NRPE server that accepts submissions (_NRPE_SUBMIT).',
  },
  {
    name: 'remote_forward',
    kind: 'forward',
    title: 'Forward a request as-is',
    description:
      'Sends the arguments after the options (command then arguments) to an NRPE server and relays the answer.',
  },
];

/** Runs one remote_* query; never rejects. */
export async function runRemoteQuery(
  name: string,
  kind: QueryKind,
  args: readonly string[],
  settings: Pick<SettingsOf<'RemoteClient'>, 'targets' | 'hash'>,
  signal?: AbortSignal,
): Promise<QueryResult> {
  const prepared = prepareClientQuery(name, kind, 'remote', args, {
    targets: settings.targets,
    container: TARGETS_PATH,
    defaultPort: REMOTE_PORT,
  });
  if (!prepared.ok) return prepared.answer;
  const request = requestText(kind, prepared.options, prepared.settings);
  if (typeof request !== 'string') return unknown(name, `${name}: ${request.problem}`);
  try {
    const answer = await nrpeRequest(clientOptionsOf(prepared.settings, signal, settings.hash), request);
    const status = toStatus(answer.result);
    if (kind === 'exec') return { command: name, result: status, message: answer.text, perf: [] };
    return { command: name, result: status, ...splitOutput(answer.text) };
  } catch (err) {
    return unknown(name, `${name}: ${errorMessage(err)}`);
  }
}

/** Sends one passive result to a connection (used for channel submissions). */
export async function submitResult(
  settings: ConnectionSettings,
  result: QueryResult,
  signal?: AbortSignal,
  version?: string,
): Promise<QueryResult> {
  const alias = settings.alias || result.command;
  const request = formatRequest(SUBMIT_COMMAND, [alias, String(result.result), toNagios(result)]);
  const answer = await nrpeRequest(clientOptionsOf(settings, signal, version), request);
  const status = toStatus(answer.result);
  return { command: alias, result: status, message: answer.text, perf: [] };
}

/**
 * The NRPE client options of a merged connection. With `version` (the
 * settings hash) the TLS context is built once per TLS settings and
 * version and shared (client-tls-cache.ts); without it, per call.
 */
export function clientOptionsOf(
  s: ConnectionSettings,
  signal?: AbortSignal,
  version?: string,
): Parameters<typeof nrpeRequest>[0] {
  const tls = {
    allowedCiphers: s.allowedCiphers,
    certificate: s.certificate,
    certificateKey: s.certificateKey,
    certificateFormat: s.certificateFormat,
    ca: s.ca,
    verifyMode: s.verifyMode,
  };
  const key = version === undefined ? undefined : JSON.stringify(['nrpe', version, tls]);
  return {
    host: s.host,
    port: s.port,
    timeoutMs: s.timeout * 1000,
    retry: s.retry,
    tls: s.ssl
      ? key === undefined
        ? buildClientTls(tls)
        : cachedClientTls(key, () => buildClientTls(tls))
      : undefined,
    version: s.version,
    payloadLength: s.payloadLength,
    signal,
  };
}

function requestText(kind: QueryKind, o: ClientOptions, s: ConnectionSettings): string | { problem: string } {
  switch (kind) {
    case 'query':
    case 'exec':
      return formatRequest(o.command ?? '', o.arguments);
    case 'forward': {
      const [command = o.command ?? '', ...rest] = o.positional;
      return formatRequest(command, [...rest, ...o.arguments]);
    }
    case 'submit': {
      const alias = o.command ?? s.alias;
      if (!alias) return { problem: 'a submission needs --alias (or --command) naming the service' };
      return formatRequest(SUBMIT_COMMAND, [alias, String(o.result ?? 0), o.message ?? '']);
    }
  }
}
