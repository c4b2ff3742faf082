/**
 * What a protocol peer may run: the `allowed queries` and `allowed exec
 * commands` lists of AgentServer and RemoteServer, one matcher for both.
 *
 * A list is comma-separated micromatch patterns (commas inside braces
 * belong to the pattern), matched case-insensitively
 * against the command name (query and exec names are case-insensitive in
 * the core). A name is allowed when it matches at least one pattern and no
 * negated one (`!remote_*`); an empty list allows nothing. So
 * `*, !remote_*, !agent_*` is every query but the client queries.
 *
 * `commandGuard` turns the lists of one server into the `allow` function
 * the core checks before it runs any query or exec command, nested ones
 * included (check_negate, check_multi, aliases run through the same guard),
 * so a refused name cannot be reached by wrapping it. A refusal logs one
 * line and answers a message naming the setting that would allow it.
 */
import { createRequire } from 'node:module';
import type { CommandFilter, CommandKind } from '../core/core.js';
import { formatMessage } from '../errors.js';
import type { Logger } from '../log.js';
import { escapeForLog } from '../log.js';

export interface AllowList {
  /** The list as written. */
  readonly text: string;
  /** True when `name` is allowed. */
  allows(name: string): boolean;
  /** True when the list allows every name (no check needed). */
  readonly everything: boolean;
  /** True when the list allows no name at all. */
  readonly nothing: boolean;
}

/** Parse a comma-separated pattern list (compiled once). */
export function parseAllowList(text: string): AllowList {
  const patterns = splitPatterns(text);
  const positive = patterns.filter((p) => !p.startsWith('!')).map(compile);
  const negative = patterns.filter((p) => p.startsWith('!') && p.length > 1).map((p) => compile(p.slice(1)));
  const everything = negative.length === 0 && patterns.some((p) => p === '*' || p === '**');
  return {
    text,
    everything,
    nothing: positive.length === 0,
    allows: (name) => everything || (positive.some((m) => m(name)) && !negative.some((m) => m(name))),
  };
}

export interface GuardOptions {
  /** Module name, for messages: `AgentServer`. */
  server: string;
  /** Settings section of the lists: `/settings/agent/server`. */
  section: string;
  queries: AllowList;
  /** Undefined: the protocol carries no exec commands. */
  execs?: AllowList;
  log: Logger;
}

/** Setting names of the two lists. */
export const ALLOWED_QUERIES = 'allowed queries';
export const ALLOWED_EXECS = 'allowed exec commands';

/**
 * The guard for one peer: undefined for an allowed name, else the refusal
 * message (the refusal is logged with the peer's address). Answers
 * undefined as a whole when both lists allow everything, so the core skips
 * the check.
 */
export function commandGuard(options: GuardOptions, peer: string): CommandFilter | undefined {
  if (options.queries.everything && (options.execs === undefined || options.execs.everything)) return undefined;
  return (kind: CommandKind, name: string) => {
    const list = kind === 'query' ? options.queries : options.execs;
    if (list?.allows(name)) return undefined;
    const what = kind === 'query' ? 'query' : 'exec command';
    const key = kind === 'query' ? ALLOWED_QUERIES : ALLOWED_EXECS;
    options.log.warning(`refused ${what} ${escapeForLog(name)} from ${escapeForLog(peer)}: not in ${list ? key : 'any allow-list'} of [${options.section}]`);
    if (!list) return `${what} ${name} cannot run over ${options.server}`;
    return formatMessage('AGENT_ERR_COMMAND_REFUSED', [what, name, options.server, key, options.section]);
  };
}

// ---------------------------------------------------------------- helpers

type Matcher = (name: string) => boolean;

/**
 * One pattern as a matcher. Plain names with `*` and `?` (nearly every list)
 * become a regular expression with micromatch's meaning for names without
 * `/`; anything else (braces, classes, extglobs) goes to micromatch, loaded
 * on first use so that reading the settings does not pay for it.
 */
function compile(pattern: string): Matcher {
  if (/^[\w.\-*?]+$/.test(pattern)) {
    const re = new RegExp(`^${pattern.replace(/[.-]/g, '\\$&').replace(/\*+/g, '.*').replace(/\?/g, '.')}$`, 'is');
    return (name) => re.test(name);
  }
  const micromatch = require('micromatch') as typeof import('micromatch');
  return micromatch.matcher(pattern, { nocase: true, dot: true });
}

const require = createRequire(import.meta.url);

/** Split at commas outside braces (`check_{cpu,memory}` is one pattern). */
function splitPatterns(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = text[i];
    if (c === '{') depth++;
    else if (c === '}') depth = Math.max(0, depth - 1);
    else if (i === text.length || (c === ',' && depth === 0)) {
      const p = text.slice(start, i).trim();
      if (p !== '') out.push(p);
      start = i + 1;
    }
  }
  return out;
}
