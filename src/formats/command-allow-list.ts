/**
 * What a protocol peer may run: the grammar of the `allowed queries` and
 * `allowed exec commands` lists of AgentServer and RemoteServer, one
 * matcher for both. Settings validation reads it (settings/model/allow-list-warnings.ts)
 * and the servers run it (protocols/command-guard.ts).
 *
 * A list is comma-separated glob patterns (glob-syntax.ts; commas inside braces
 * belong to the pattern), matched case-insensitively
 * against the command name (query and exec names are case-insensitive in
 * the core). A name is allowed when it matches at least one pattern and no
 * negated one (`!remote_*`); an empty list allows nothing. So
 * `*, !remote_*, !agent_*` is every query but the client queries.
 */
import { linearGlob, PatternCostError, PatternError } from './linear-pattern.js';
import { wildcardPattern } from './wildcard.js';

export interface AllowList {
  /** The list as written. */
  readonly text: string;
  /** True when `name` is allowed. */
  allows(name: string): boolean;
  /** True when the list allows every name (no check needed). */
  readonly everything: boolean;
  /** True when the list allows no name at all. */
  readonly nothing: boolean;
  /** Patterns the linear-time matcher cannot run, with why (they match no name: settings validation reports them). */
  readonly refused: readonly string[];
}

/** Parse a comma-separated pattern list (compiled once). */
export function parseAllowList(text: string): AllowList {
  const patterns = splitPatterns(text);
  const refused: string[] = [];
  const positive = patterns.filter((p) => !p.startsWith('!')).map((p) => compile(p, refused, false));
  // A negated pattern that cannot run refuses every name: failing closed.
  const negative = patterns
    .filter((p) => p.startsWith('!') && p.length > 1)
    .map((p) => compile(p.slice(1), refused, true));
  const everything = negative.length === 0 && patterns.some((p) => p === '*' || p === '**');
  return {
    text,
    everything,
    nothing: positive.length === 0,
    refused,
    allows: (name) => everything || (positive.some((m) => m(name)) && !negative.some((m) => m(name))),
  };
}

/** Setting names of the two lists. */
export const ALLOWED_QUERIES = 'allowed queries';
export const ALLOWED_EXECS = 'allowed exec commands';

// ---------------------------------------------------------------- helpers

type Matcher = (name: string) => boolean;

/**
 * One pattern as a matcher. Plain names with `*` and `?` (nearly every list)
 * go through the plain wildcard (wildcard.ts), which has the glob's
 * meaning for names without `/`; anything else (braces, classes, extglobs)
 * is translated to RE2 and run on the linear-time engine (linear-pattern.ts),
 * loaded on first use so that reading the settings does not pay for it.
 * A pattern that engine cannot run is listed in `refused` and matches as `onRefused` says.
 */
function compile(pattern: string, refused: string[], onRefused: boolean): Matcher {
  if (/^[\w.\-*?]+$/.test(pattern)) {
    const re = wildcardPattern(pattern, { ignoreCase: true });
    return (name) => re.test(name);
  }
  try {
    const glob = linearGlob(pattern, { ignoreCase: true, dot: true });
    // A name too long to match within the pattern budget fails closed, as a pattern that cannot run.
    return (name) => {
      try {
        return glob.test(name);
      } catch (err) {
        if (!(err instanceof PatternCostError)) throw err;
        return onRefused;
      }
    };
  } catch (err) {
    if (!(err instanceof PatternError)) throw err;
    refused.push(err.message);
    return () => onRefused;
  }
}

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
