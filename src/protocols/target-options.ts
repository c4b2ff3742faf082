/**
 * Merges a resolved client target (from the settings snapshot) with the
 * explicit options of a client query into the settings of one connection.
 * Explicit options win; then the target's values; then the query defaults
 * (timeout 10 s, retry 2). `address` may be `host`, `host:port` or
 * `[v6]:port`; a port of 0 means the protocol's default port.
 * The target is `--target` or `default`; naming a target that does not
 * exist, or a template (`is template = 1`, other than `default`), is a
 * problem that lists the targets that exist, never a silent fallback.
 */
import { AgentError } from '../errors.js';
import type { ResolvedObject } from '../settings/snapshot.js';
import type { ClientOptions } from './client-options.js';

export const DEFAULT_QUERY_TIMEOUT = 10;
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

export function mergeTarget(source: TargetSource, options: ClientOptions): MergedConnection {
  const name = options.target ?? 'default';
  const target = source.targets.get(name);
  if (target === undefined && options.target !== undefined) {
    return { ok: false, problem: `${new AgentError('AGENT_ERR_TARGET_UNKNOWN', [name, source.container]).message}; ${knownTargets(source.targets)}` };
  }
  // `default` is the template every target starts from and the target of a query that names none.
  if (target?.isTemplate && options.target !== undefined && name !== 'default') {
    return { ok: false, problem: `${new AgentError('AGENT_ERR_TARGET_TEMPLATE', [name, source.container]).message}; ${knownTargets(source.targets)}` };
  }
  const values = target?.values ?? {};
  const str = (key: string, fallback = ''): string => (typeof values[key] === 'string' ? (values[key]) : fallback);
  const num = (key: string, fallback: number): number => (typeof values[key] === 'number' ? (values[key]) : fallback);
  const bool = (key: string, fallback: boolean): boolean => (typeof values[key] === 'boolean' ? (values[key]) : fallback);
  const isSet = (key: string): boolean => target !== undefined && target.origins[key] !== undefined;

  const fromTarget = splitAddress(str('address'));
  let host = fromTarget.host || str('host');
  let port = fromTarget.port || num('port', 0);
  if (options.address !== undefined) {
    const a = splitAddress(options.address);
    if (a.host) host = a.host;
    if (a.port) port = a.port;
  }
  if (options.host !== undefined) host = options.host;
  if (options.port !== undefined) port = options.port;
  if (!host) {
    return { ok: false, problem: `no host to connect to: give --host or --address, or set address in [${source.container}/${name}]` };
  }
  return {
    ok: true,
    settings: {
      target: name,
      host,
      port: port || source.defaultPort,
      timeout: options.timeout ?? (isSet('timeout') ? num('timeout', DEFAULT_QUERY_TIMEOUT) : DEFAULT_QUERY_TIMEOUT),
      retry: options.retry ?? (isSet('retry') ? num('retry', DEFAULT_QUERY_RETRY) : DEFAULT_QUERY_RETRY),
      ssl: options.ssl ?? bool('use ssl', true),
      allowedCiphers: options.allowedCiphers ?? str('allowed ciphers', 'ADH'),
      certificate: options.certificate ?? str('certificate'),
      certificateKey: options.certificateKey ?? str('certificate key'),
      certificateFormat: options.certificateFormat ?? str('certificate format', 'PEM'),
      ca: options.ca ?? str('ca'),
      verifyMode: options.verify ?? str('verify mode', 'none'),
      dh: options.dh ?? str('dh'),
      payloadLength: options.payloadLength ?? num('payload length', 1024),
      version: options.version ?? versionOf(values['version']),
      alias: str('alias'),
    },
  };
}

/** "targets defined: a, b (templates: t)" for messages. */
function knownTargets(targets: ReadonlyMap<string, ResolvedObject>): string {
  const real = [...targets.values()].filter((t) => !t.isTemplate).map((t) => t.name).sort();
  const templates = [...targets.values()].filter((t) => t.isTemplate && t.name !== 'default' && t.name !== 'sample').map((t) => t.name).sort();
  return `${real.length > 0 ? `targets defined: ${real.join(', ')}` : 'no targets are defined'}${templates.length > 0 ? ` (templates, usable only as parent: ${templates.join(', ')})` : ''}`;
}

/** Splits `host`, `host:port`, `[v6]` or `[v6]:port`; a bare IPv6 address has no port. */
export function splitAddress(address: string): { host: string; port: number } {
  const a = address.trim();
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(a);
  if (bracket) return { host: bracket[1], port: Number(bracket[2] ?? 0) };
  const colons = a.split(':').length - 1;
  if (colons === 1) {
    const [h, p] = a.split(':');
    if (/^\d+$/.test(p)) return { host: h, port: Number(p) };
  }
  return { host: a, port: 0 };
}

function versionOf(v: unknown): 'auto' | 2 | 3 | 4 {
  return v === 2 || v === 3 || v === 4 || v === '2' || v === '3' || v === '4' ? (Number(v) as 2 | 3 | 4) : 'auto';
}
