/**
 * Variables in values: `${base-path}` (the settings file's folder),
 * `${certificate-path}` (default `${base-path}/security`), `${scripts}`
 * (default `${base-path}/scripts`), `${state}` (the folder of what the agent
 * keeps between runs: systemd's $STATE_DIRECTORY when the service manager
 * sets it, else `${base-path}/state`) and `${temp}` (the system temp folder);
 * `[/paths]` overrides them. `$$` is not special; an unknown name or an
 * unterminated `${` is a problem at the column where it starts.
 *
 * Secrets from outside the file: `${env:NAME}` (the environment variable)
 * and `${file:PATH}` (the file's content without its final line break; a
 * relative PATH is taken from the folder of the settings file that holds
 * the value; a regular file of at most 64 KiB: formats/regular-file.ts). A value that uses either is a secret: `secret` is set, and
 * callers must never show it (settings/model/secrets.ts). An unset variable or an
 * unreadable file is a problem at its column; its message names the
 * variable or the path, never a value.
 */
import { tmpdir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fsReason, type ErrorCode } from '../../errors.js';
import { readRegularFileSync, SECRET_FILE_LIMIT } from '../../formats/regular-file.js';

export interface VariableProblem {
  code: Extract<
    ErrorCode,
    'AGENT_ERR_VARIABLE_UNKNOWN' | 'AGENT_ERR_VARIABLE_UNTERMINATED' | 'AGENT_ERR_ENV_UNSET' | 'AGENT_ERR_SECRET_FILE'
  >;
  /** 0-based offset in the value where `${` starts. */
  offset: number;
  name: string;
  /** The message arguments for the code. */
  args: readonly string[];
}

export interface ExpandContext {
  /** Where `${file:}` paths start: the folder of the file the value is written in. */
  dir: string;
  /**
   * For a value that is a command line (`x-command-line` in its schema):
   * writes a variable's text so that the line's splitter reads it back as
   * it is, part of one word (formats/script-command-line.ts,
   * formats/alias-command.ts); `before` is the value up to the variable.
   */
  quote?: (text: string, before: string) => string;
}

export const VARIABLE_NAMES = ['base-path', 'certificate-path', 'scripts', 'state', 'temp'] as const;

/** The built-in variable values for a settings file, before [/paths] overrides. */
/** The path variables every settings file has, by name. */
export type PathVariables = Record<'base-path' | 'certificate-path' | 'scripts' | 'state' | 'temp', string>;

export function defaultVariables(settingsFile: string): PathVariables {
  const base = dirname(resolve(settingsFile));
  return {
    'base-path': base,
    'certificate-path': `${base}/security`,
    scripts: `${base}/scripts`,
    state: serviceStateDirectory() ?? `${base}/state`,
    temp: systemTemp(),
  };
}

/**
 * The state folder systemd made for the service (StateDirectory=; the first one when it lists
 * several, separated by ':'), or undefined outside a service that asks for one.
 */
function serviceStateDirectory(): string | undefined {
  const dirs = process.env.STATE_DIRECTORY;
  if (dirs === undefined || dirs === '') return undefined;
  return dirs.split(':')[0];
}

/** The system temp folder, read once per process (os.tmpdir() reads the environment each time: a fleet run asks 10,000 times). */
let temp: string | undefined;
function systemTemp(): string {
  return (temp ??= tmpdir());
}

/**
 * Expand `${name}`, `${env:NAME}` and `${file:PATH}` references. Returns the
 * expanded text, the problems (unknown references are left as written) and
 * whether a secret from outside the file went into the value. In a command
 * line (`ctx.quote`), each variable's text is quoted so that a path with
 * blanks stays one word.
 */
export function expandVariables(
  value: string,
  vars: Readonly<Record<string, string>>,
  ctx?: ExpandContext,
): { value: string; problems: VariableProblem[]; secret: boolean } {
  if (!value.includes('${')) return { value, problems: [], secret: false };
  const problems: VariableProblem[] = [];
  const quote = ctx?.quote;
  const literal = (text: string, start: number): string => (quote ? quote(text, value.slice(0, start)) : text);
  let secret = false;
  let out = '';
  let i = 0;
  while (i < value.length) {
    const start = value.indexOf('${', i);
    if (start < 0) {
      out += value.slice(i);
      break;
    }
    out += value.slice(i, start);
    const end = value.indexOf('}', start + 2);
    if (end < 0) {
      problems.push({
        code: 'AGENT_ERR_VARIABLE_UNTERMINATED',
        offset: start,
        name: value.slice(start),
        args: [value],
      });
      out += value.slice(start);
      break;
    }
    const name = value.slice(start + 2, end);
    const external = externalValue(name, ctx);
    if (external !== undefined) {
      secret = true;
      if ('problem' in external) {
        problems.push({ ...external.problem, offset: start });
        out += value.slice(start, end + 1);
      } else {
        out += literal(external.value, start);
      }
      i = end + 1;
      continue;
    }
    const replacement = vars[name];
    if (replacement === undefined) {
      problems.push({ code: 'AGENT_ERR_VARIABLE_UNKNOWN', offset: start, name, args: [name] });
      out += value.slice(start, end + 1);
    } else {
      out += literal(replacement, start);
    }
    i = end + 1;
  }
  return { value: out, problems, secret };
}

/**
 * Apply [/paths] overrides in order base-path, state, certificate-path,
 * scripts, temp, each expanded with the values before it (so
 * `certificate-path = ${state}/security` works). Relative results are taken
 * relative to the settings file's folder.
 */
export function resolveVariables(
  settingsFile: string,
  overrides: Readonly<Record<string, string>>,
  /** The folder each override is written in (for `${file:}`), by key. */
  dirs: Readonly<Record<string, string>> = {},
): { vars: PathVariables; problems: { key: string; problem: VariableProblem }[]; secrets: Set<string> } {
  const defaults = defaultVariables(settingsFile);
  const base = defaults['base-path'];
  const vars: Record<string, string> = {};
  const problems: { key: string; problem: VariableProblem }[] = [];
  const secrets = new Set<string>();
  const pick = (key: string, fallback: string): string => {
    const raw = overrides[key] ?? fallback;
    const r = expandVariables(raw, vars, { dir: dirs[key] ?? base });
    for (const p of r.problems) problems.push({ key, problem: p });
    if (r.secret) secrets.add(key);
    return (vars[key] = resolve(base, r.value));
  };
  // In this order: each may use those before it.
  const resolved: PathVariables = {
    'base-path': pick('base-path', base),
    state: pick('state', serviceStateDirectory() ?? '${base-path}/state'),
    'certificate-path': pick('certificate-path', '${base-path}/security'),
    scripts: pick('scripts', '${base-path}/scripts'),
    temp: pick('temp', defaults.temp),
  };
  return { vars: resolved, problems, secrets };
}

// ---------------------------------------------------------------------------
// Helpers

/**
 * The values of the variables `${env:}` has read, by name. A variable read
 * this way is a secret: it leaves process.env at its first read, so the
 * scripts the agent starts (which inherit process.env) never see it, and
 * later reloads read it from here. The usual variables of a login
 * (PATH, HOME, LANG, …) stay: they are no secrets and scripts need them.
 */
const readEnv = new Map<string, string>();
const KEPT_ENV = /^(PATH|HOME|USER|LOGNAME|SHELL|LANG|LANGUAGE|LC_\w+|TZ|TMPDIR|PWD|HOSTNAME|TERM)$/;
let envChanges = 0;

/** How many variables have left process.env so far (a cache of the environment is stale when this changed). */
export function envGeneration(): number {
  return envChanges;
}

function envVariable(name: string): string | undefined {
  const known = readEnv.get(name);
  if (known !== undefined) return known;
  const v = process.env[name];
  if (v !== undefined && !KEPT_ENV.test(name)) {
    readEnv.set(name, v);
    // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- process.env is a map of names: the variable must leave it
    delete process.env[name];
    envChanges++;
  }
  return v;
}

/** `env:NAME` or `file:PATH`: the value or the problem; undefined for any other name. */
function externalValue(
  name: string,
  ctx: ExpandContext | undefined,
): { value: string } | { problem: Omit<VariableProblem, 'offset'> } | undefined {
  if (name.startsWith('env:')) {
    const variable = name.slice(4);
    const v = envVariable(variable);
    if (v === undefined) return { problem: { code: 'AGENT_ERR_ENV_UNSET', name, args: [variable, variable] } };
    return { value: v };
  }
  if (name.startsWith('file:')) {
    const path = name.slice(5);
    const abs = resolve(ctx?.dir ?? process.cwd(), path);
    try {
      // A regular file of at most 64 KiB: a FIFO would block the agent, /dev/zero would fill its memory.
      return {
        value: readRegularFileSync(abs, SECRET_FILE_LIMIT)
          .toString('utf8')
          .replace(/\r?\n$/, ''),
      };
    } catch (err) {
      return { problem: { code: 'AGENT_ERR_SECRET_FILE', name, args: [path, fsReason(err)] } };
    }
  }
  return undefined;
}
