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
 * a message naming it. The options themselves are the table in
 * client-option-table.ts; their help, client-help.ts.
 */
import { parseStatus } from '../core/result.js';
import { parseBoolean } from '../formats/boolean.js';
import {
  optionsFor,
  type ClientOptions,
  type ClientProtocol,
  type OptionSpec,
  type ParsedClientOptions,
  type QueryKind,
} from './client-option-table.js';

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
