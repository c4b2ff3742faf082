/**
 * The option table of the client queries (remote_* and agent_*): each
 * option's name, aliases, kind and help, which queries and which protocol
 * take it, and the options a parse yields. The parser (client-options.ts)
 * and the help (client-help.ts) both read it.
 */
import type { Status } from '../core/result.js';

export type QueryKind = 'query' | 'exec' | 'submit' | 'forward';
export type ClientProtocol = 'remote' | 'agent';
export type OptionKind = 'flag' | 'value' | 'int' | 'list' | 'status' | 'help';

export interface OptionSpec {
  readonly name: string;
  readonly aliases?: readonly string[];
  readonly kind: OptionKind;
  readonly help: string;
  /** Queries that take the option; all when absent. */
  readonly kinds?: readonly QueryKind[];
  /** Only the remote-protocol client takes it. */
  readonly remoteOnly?: boolean;
}

/** The specification's option table (plus `version`), in help order. */
export const CLIENT_OPTIONS: readonly OptionSpec[] = [
  { name: 'help', kind: 'help', help: 'show help screen' },
  { name: 'help-csv', kind: 'help', help: 'help as a comma-separated list' },
  { name: 'help-short', kind: 'help', help: 'short help' },
  { name: 'host', aliases: ['H'], kind: 'value', help: 'host running the server' },
  { name: 'port', aliases: ['p'], kind: 'int', help: 'port of the server' },
  { name: 'address', kind: 'value', help: 'host:port of the server' },
  { name: 'timeout', aliases: ['t'], kind: 'int', help: 'seconds before the connection times out (default 10)' },
  { name: 'target', kind: 'value', help: 'target whose connection info is looked up in the settings' },
  { name: 'retry', aliases: ['retries'], kind: 'int', help: 'connection retry count (default 2)' },
  {
    name: 'command',
    aliases: ['c'],
    kind: 'value',
    help: 'name of the command (exec, submit) or query (query) that the remote side runs',
  },
  { name: 'arguments', aliases: ['argument', 'a'], kind: 'list', help: 'list of arguments', kinds: ['query', 'exec'] },
  { name: 'query-command', kind: 'value', help: 'same meaning as command for queries', kinds: ['query'] },
  { name: 'query-arguments', kind: 'list', help: 'list of arguments', kinds: ['query'] },
  { name: 'alias', kind: 'value', help: 'same as command', kinds: ['submit'] },
  { name: 'message', aliases: ['m'], kind: 'value', help: 'message text', kinds: ['submit'] },
  {
    name: 'result',
    aliases: ['r'],
    kind: 'status',
    help: 'result code: a number, or one of OK, WARN, CRIT, UNKNOWN',
    kinds: ['submit'],
  },
  { name: 'no-ssl', aliases: ['n'], kind: 'flag', help: 'do not do an SSL handshake, talk plain text' },
  { name: 'ssl', kind: 'flag', help: 'do an SSL handshake' },
  { name: 'certificate', kind: 'value', help: 'client certificate file' },
  { name: 'dh', kind: 'value', help: 'pre-generated DH key (with ADH it serves as the key but is not secret)' },
  { name: 'certificate-key', kind: 'value', help: 'client certificate key to use' },
  { name: 'certificate-format', kind: 'value', help: 'client certificate format (default PEM)' },
  { name: 'ca', kind: 'value', help: 'file with the certificate authority used to validate peers' },
  {
    name: 'verify',
    kind: 'value',
    help: 'verification mode: none, peer, peer-cert, remote-peer, fail-if-no-peer-cert',
  },
  {
    name: 'allowed-ciphers',
    kind: 'value',
    help: 'allowed ciphers, OpenSSL syntax (default: allowed ciphers of the default target in the settings in use, ALL:!aNULL:!LOW:!EXP:!MD5:@STRENGTH in the shipped settings/agent.ini; ADH where no settings name one, which a stock nrpe without a certificate needs)',
  },
  {
    name: 'payload-length',
    aliases: ['P', 'l'],
    kind: 'int',
    help: 'payload length, same as on the server',
    remoteOnly: true,
  },
  { name: 'buffer-length', kind: 'int', help: 'same as payload-length (legacy)', remoteOnly: true },
  {
    name: 'version',
    kind: 'value',
    help: 'packet version: 2, 3, 4 or auto (default auto: 4, falling back to 2)',
    remoteOnly: true,
  },
];

export interface ClientOptions {
  help?: 'full' | 'csv' | 'short';
  host?: string;
  port?: number;
  address?: string;
  timeout?: number;
  target?: string;
  retry?: number;
  /** command, query-command or alias. */
  command?: string;
  /** arguments, query-arguments and positional tokens (query, exec). */
  arguments: string[];
  message?: string;
  result?: Status;
  /** true for --ssl, false for --no-ssl; absent when neither was given. */
  ssl?: boolean;
  certificate?: string;
  dh?: string;
  certificateKey?: string;
  certificateFormat?: string;
  ca?: string;
  verify?: string;
  allowedCiphers?: string;
  /** payload-length or buffer-length. */
  payloadLength?: number;
  version?: 'auto' | 2 | 3 | 4;
  /** Bare tokens of a forward query: the request as-is. */
  positional: string[];
}

export type ParsedClientOptions = { ok: true; options: ClientOptions } | { ok: false; problem: string };

/** The kind of a client query from its name, following NSClient++ (`*_query`, `check_*`, `exec_*`, ...). */
export function queryKindOf(name: string): QueryKind | undefined {
  const n = name.toLowerCase();
  if (n.startsWith('forward_') || n.endsWith('_forward')) return 'forward';
  if (n.startsWith('check_') || n.endsWith('_query')) return 'query';
  if (n.startsWith('exec_') || n.endsWith('_exec')) return 'exec';
  if (n.startsWith('submit_') || n.endsWith('_submit')) return 'submit';
  return undefined;
}

/** The options a query of this kind and protocol takes. */
export function optionsFor(kind: QueryKind, protocol: ClientProtocol): OptionSpec[] {
  return CLIENT_OPTIONS.filter((o) => (!o.kinds || o.kinds.includes(kind)) && (!o.remoteOnly || protocol === 'remote'));
}
