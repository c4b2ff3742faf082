/**
 * Merges a resolved client target (from the settings snapshot) with the
 * explicit options of a client query into the settings of one connection.
 * Explicit options win; then the target's values, which carry the target
 * schema's defaults (schema/modules/*-target.schema.json: the one place
 * they live; a source without a `default` target, such as a test's, gets
 * them from the schema here, `${…}` variables unexpanded). `retry`, not a
 * target key, defaults to DEFAULT_QUERY_RETRY (an option of the query).
 * `address` may be `host`, `host:port` or `[v6]:port`; a port of 0 means
 * the protocol's default port.
 * The target is `--target` or `default`; naming a target that does not
 * exist, or a template (`is template = 1`, other than `default`), is a
 * problem that lists the targets that exist, never a silent fallback.
 */
import { unknown, type QueryResult } from '../core/result.js';
import { AgentError, formatMessage } from '../errors.js';
import { schemaDefaults } from '../settings/model/schema-set.js';
import type { ResolvedObject } from '../settings/model/snapshot.js';
import { clientHelp } from './client-help.js';
import type { ClientOptions, ClientProtocol, QueryKind } from './client-option-table.js';
import { parseClientOptions } from './client-options.js';
import { inRange } from '../in-range.js';

/** Connection retries of a query without `--retry` (not a target key: NSClient++'s `retry` option, default 2). */
export const DEFAULT_QUERY_RETRY = 2;

export interface ConnectionSettings {
  target: string;
  host: string;
  port: number;
  /** Seconds. */
  timeout: number;
  retry: number;
  ssl: boolean;
  allowedCiphers: string;
  certificate: string;
  certificateKey: string;
  certificateFormat: string;
  ca: string;
  verifyMode: string;
  dh: string;
  /** NRPE v2 payload length: remote-protocol targets only (0 for agent targets, whose schema has no such key). */
  payloadLength: number;
  version: 'auto' | 2 | 3 | 4;
  /** The target's alias (service name to report), empty when unset. */
  alias: string;
}

export interface TargetSource {
  /** Resolved targets of the client (snapshot.targets.remote or .agent); may be empty. */
  targets: ReadonlyMap<string, ResolvedObject>;
  /** Container section, for messages, e.g. /settings/remote/client/targets. */
  container: string;
  /** The protocol's port (5666 for remote). */
  defaultPort: number;
}

export type MergedConnection = { ok: true; settings: ConnectionSettings } | { ok: false; problem: string };

/** A client query's options merged with its target, or the answer it gets without a connection: its help text, or an UNKNOWN saying which option or target is wrong. */
export type PreparedQuery =
  { ok: true; options: ClientOptions; settings: ConnectionSettings } | { ok: false; answer: QueryResult };

/** The start every remote_* and agent_* query shares: parse the options, answer --help, merge with the target. */
export function prepareClientQuery(
  name: string,
  kind: QueryKind,
  protocol: ClientProtocol,
  args: readonly string[],
  source: TargetSource,
): PreparedQuery {
  const parsed = parseClientOptions(args, kind, protocol);
  if (!parsed.ok)
    return {
      ok: false,
      answer: unknown(name, `${name}: ${formatMessage('AGENT_ERR_CLIENT_OPTION', [parsed.problem])}`),
    };
  const o = parsed.options;
  if (o.help)
    return {
      ok: false,
      answer: { command: name, result: 0, message: clientHelp(name, kind, protocol, o.help), perf: [] },
    };
  const merged = mergeTarget(source, o);
  if (!merged.ok) return { ok: false, answer: unknown(name, `${name}: ${merged.problem}`) };
  return { ok: true, options: o, settings: merged.settings };
}

export function mergeTarget(source: TargetSource, options: ClientOptions): MergedConnection {
  const name = options.target ?? 'default';
  const target = source.targets.get(name);
  if (target === undefined && options.target !== undefined) {
    return {
      ok: false,
      problem: `${new AgentError('AGENT_ERR_TARGET_UNKNOWN', [name, source.container]).message}; ${knownTargets(source.targets)}`,
    };
  }
  // `default` is the template every target starts from and the target of a query that names none.
  if (target?.isTemplate && options.target !== undefined && name !== 'default') {
    return {
      ok: false,
      problem: `${new AgentError('AGENT_ERR_TARGET_TEMPLATE', [name, source.container]).message}; ${knownTargets(source.targets)}`,
    };
  }
  const values = target?.values ?? schemaDefaults(`${source.container}/default`);
  // The values are complete (schema defaults applied); a key the target schema lacks reads as empty.
  const str = (key: string): string => (typeof values[key] === 'string' ? values[key] : '');
  const num = (key: string): number => (typeof values[key] === 'number' ? values[key] : 0);

  const fromTarget = splitAddress(str('address'));
  let host = fromTarget.host || str('host');
  let port = fromTarget.port || num('port');
  if (options.address !== undefined) {
    const a = splitAddress(options.address);
    if (a.host) host = a.host;
    if (a.port) port = a.port;
  }
  if (options.host !== undefined) host = options.host;
  if (options.port !== undefined) port = options.port;
  if (!host) {
    return {
      ok: false,
      problem: `no host to connect to: give --host or --address, or set address in [${source.container}/${name}]`,
    };
  }
  return {
    ok: true,
    settings: {
      target: name,
      host,
      port: port || source.defaultPort,
      timeout: options.timeout ?? num('timeout'),
      retry: options.retry ?? DEFAULT_QUERY_RETRY,
      ssl: options.ssl ?? values['use ssl'] === true,
      allowedCiphers: options.allowedCiphers ?? str('allowed ciphers'),
      certificate: options.certificate ?? str('certificate'),
      certificateKey: options.certificateKey ?? str('certificate key'),
      certificateFormat: options.certificateFormat ?? str('certificate format'),
      ca: options.ca ?? str('ca'),
      verifyMode: options.verify ?? str('verify mode'),
      dh: options.dh ?? str('dh'),
      payloadLength: options.payloadLength ?? num('payload length'),
      version: options.version ?? versionOf(values['version']),
      alias: str('alias'),
    },
  };
}

/** "targets defined: a, b (templates: t)" for messages. */
function knownTargets(targets: ReadonlyMap<string, ResolvedObject>): string {
  const real = [...targets.values()]
    .filter((t) => !t.isTemplate)
    .map((t) => t.name)
    .sort();
  const templates = [...targets.values()]
    .filter((t) => t.isTemplate && t.name !== 'default' && t.name !== 'sample')
    .map((t) => t.name)
    .sort();
  return `${real.length > 0 ? `targets defined: ${real.join(', ')}` : 'no targets are defined'}${templates.length > 0 ? ` (templates, usable only as parent: ${templates.join(', ')})` : ''}`;
}

/** Splits `host`, `host:port`, `[v6]` or `[v6]:port`; a bare IPv6 address has no port. */
export function splitAddress(address: string): { host: string; port: number } {
  const a = address.trim();
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(a);
  if (bracket) return { host: inRange(bracket, 1), port: Number(bracket[2] ?? 0) };
  const colons = a.split(':').length - 1;
  if (colons === 1) {
    const [h = '', p = ''] = a.split(':');
    if (/^\d+$/.test(p)) return { host: h, port: Number(p) };
  }
  return { host: a, port: 0 };
}

function versionOf(v: unknown): 'auto' | 2 | 3 | 4 {
  return v === 2 || v === 3 || v === 4 || v === '2' || v === '3' || v === '4' ? (Number(v) as 2 | 3 | 4) : 'auto';
}
