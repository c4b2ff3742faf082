/**
 * Arguments of the client queries (remote_* and agent_*), parsed from one
 * option table that also produces the help texts.
 *
 * Accepted forms: `--name=value`, `--name value`, `name=value` (a known
 * option name without dashes), short aliases (`-H host`), and flags
 * (`--no-ssl`, `--ssl`, or `--ssl=false`). `--arguments`, `--argument`,
 * `--query-arguments` and `-a` may repeat; every token after one of them is
 * an argument too until the next `--` token that names a known option (so
 * `--arguments -w 80 x=1 --host h` gives the arguments `-w`, `80`, `x=1`). Other bare
 * tokens are positional: arguments for query and exec, the request itself
 * for forward. Parsing never throws: a bad option yields `{ok: false}` with
 * a message naming it.
 */
import { parseStatus, type Status } from '../core/result.js';
import { parseBoolean } from '../formats/boolean.js';

export type QueryKind = 'query' | 'exec' | 'submit' | 'forward';
export type ClientProtocol = 'remote' | 'agent';
type OptionKind = 'flag' | 'value' | 'int' | 'list' | 'status' | 'help';

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

/** Parses a client query's arguments; see the file comment for the forms accepted. */
export function parseClientOptions(
  args: readonly string[],
  kind: QueryKind,
  protocol: ClientProtocol,
): ParsedClientOptions {
  const specs = optionsFor(kind, protocol);
  const lookup = new Map<string, OptionSpec>();
  for (const s of specs) for (const n of [s.name, ...(s.aliases ?? [])]) lookup.set(n, s);
  const options: ClientOptions = { arguments: [], positional: [] };
  let collecting = false;
  for (let i = 0; i < args.length; i++) {
    const token = args[i];
    if (collecting && !token.startsWith('--')) {
      options.arguments.push(token);
      continue;
    }
    const named = splitToken(token, lookup);
    if (named === undefined) {
      if (collecting || kind === 'query' || kind === 'exec') options.arguments.push(token);
      else if (kind === 'forward') options.positional.push(token);
      else
        return {
          ok: false,
          problem: `unexpected argument "${token}"${token.startsWith('-') ? ' (unknown option)' : ''}`,
        };
      continue;
    }
    if (named.spec === undefined) {
      if (collecting) {
        options.arguments.push(token);
        continue;
      }
      return {
        ok: false,
        problem: `unknown option "${token}" (${kind === 'forward' ? 'a forwarded request goes after the options' : 'see --help'})`,
      };
    }
    const spec = named.spec;
    collecting = spec.kind === 'list';
    let value = named.value;
    if (value === undefined && (spec.kind === 'value' || spec.kind === 'int' || spec.kind === 'status')) {
      if (i + 1 >= args.length) return { ok: false, problem: `option --${spec.name} needs a value` };
      value = args[++i]!;
    }
    const problem = assign(options, spec, value);
    if (problem) return { ok: false, problem };
  }
  return { ok: true, options };
}

/** Help text for a query in one of the three forms, generated from the option table. */
export function clientHelp(
  query: string,
  kind: QueryKind,
  protocol: ClientProtocol,
  form: 'full' | 'csv' | 'short',
): string {
  const specs = optionsFor(kind, protocol);
  if (form === 'short') return `${query} options: ${specs.map((s) => `--${s.name}`).join(' ')}`;
  if (form === 'csv') {
    return [
      'option,aliases,takes,description',
      ...specs.map((s) => [s.name, (s.aliases ?? []).join(' '), takes(s), csv(s.help)].join(',')),
    ].join('\n');
  }
  const left = (s: OptionSpec): string =>
    [`--${s.name}`, ...(s.aliases ?? []).map((a) => (a.length === 1 ? `-${a}` : `--${a}`))].join(', ') +
    (takes(s) ? ` <${takes(s)}>` : '');
  const width = Math.max(...specs.map((s) => left(s).length)) + 2;
  return [
    `Usage: ${query} [options]${kind === 'forward' ? ' <command> [<argument>...]' : ''}`,
    'Options take the forms --name=value, --name value or name=value.',
    ...specs.map((s) => `  ${left(s).padEnd(width)}${s.help}`),
  ].join('\n');
}

// ---------------------------------------------------------------- helpers

/** The option a token names (with an inline value), {spec: undefined} for an unknown dashed name, undefined for a bare token. */
function splitToken(
  token: string,
  lookup: Map<string, OptionSpec>,
): { spec: OptionSpec | undefined; value?: string } | undefined {
  const found = (spec: OptionSpec, value: string | undefined): { spec: OptionSpec; value?: string } =>
    value === undefined ? { spec } : { spec, value };
  const long = /^--([A-Za-z0-9][\w-]*)(?:=(.*))?$/s.exec(token);
  if (long) {
    const spec = lookup.get(long[1]);
    return spec ? found(spec, long[2]) : { spec: undefined };
  }
  const short = /^-([A-Za-z0-9][\w-]*)(?:=(.*))?$/s.exec(token);
  if (short) {
    const spec = lookup.get(short[1]);
    return spec ? found(spec, short[2]) : undefined;
  }
  const bare = /^([A-Za-z][\w-]+)=(.*)$/s.exec(token);
  const spec = bare ? lookup.get(bare[1]) : undefined;
  return spec ? found(spec, bare![2]) : undefined;
}

function assign(o: ClientOptions, spec: OptionSpec, value: string | undefined): string | undefined {
  const v = value ?? '';
  switch (spec.kind) {
    case 'help':
      o.help = spec.name === 'help-csv' ? 'csv' : spec.name === 'help-short' ? 'short' : 'full';
      return undefined;
    case 'flag': {
      // A flag given bare (`--ssl`, `--ssl=`) is on.
      const on = value === undefined || value.trim() === '' ? true : parseBoolean(value);
      if (on === undefined) return `option --${spec.name} takes true or false, not "${value}"`;
      o.ssl = spec.name === 'no-ssl' ? !on : on;
      return undefined;
    }
    case 'list':
      if (value !== undefined) o.arguments.push(value);
      return undefined;
    case 'status': {
      const s = parseStatus(v);
      if (s === undefined) return `option --${spec.name}: "${v}" is not a number 0-3 or OK, WARN, CRIT, UNKNOWN`;
      o.result = s;
      return undefined;
    }
    case 'int': {
      if (!/^\d{1,9}$/.test(v.trim())) return `option --${spec.name}: "${v}" is not a whole number`;
      const n = Number(v);
      if (spec.name === 'port') {
        if (n > 65535) return `option --port: ${n} is not a port number`;
        o.port = n;
      } else if (spec.name === 'timeout') {
        if (n < 1) return 'option --timeout must be at least 1 second';
        o.timeout = n;
      } else if (spec.name === 'retry') o.retry = n;
      else {
        if (n < 16 || n > 1048576) return `option --${spec.name}: ${n} is outside 16..1048576`;
        o.payloadLength = n;
      }
      return undefined;
    }
    case 'value':
      return assignValue(o, spec.name, v);
  }
}

function assignValue(o: ClientOptions, name: string, v: string): string | undefined {
  switch (name) {
    case 'command':
    case 'query-command':
    case 'alias':
      o.command = v;
      break;
    case 'version': {
      const t = v.trim().toLowerCase();
      if (t !== 'auto' && t !== '2' && t !== '3' && t !== '4') return `option --version: "${v}" is not 2, 3, 4 or auto`;
      o.version = t === 'auto' ? 'auto' : (Number(t) as 2 | 3 | 4);
      break;
    }
    case 'host':
      o.host = v;
      break;
    case 'address':
      o.address = v;
      break;
    case 'target':
      o.target = v;
      break;
    case 'message':
      o.message = v;
      break;
    case 'certificate':
      o.certificate = v;
      break;
    case 'dh':
      o.dh = v;
      break;
    case 'certificate-key':
      o.certificateKey = v;
      break;
    case 'certificate-format':
      o.certificateFormat = v;
      break;
    case 'ca':
      o.ca = v;
      break;
    case 'verify':
      o.verify = v;
      break;
    case 'allowed-ciphers':
      o.allowedCiphers = v;
      break;
  }
  return undefined;
}

function takes(s: OptionSpec): string {
  return s.kind === 'flag' || s.kind === 'help'
    ? ''
    : s.kind === 'int'
      ? 'number'
      : s.kind === 'status'
        ? 'status'
        : 'value';
}

function csv(text: string): string {
  return /[",]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
