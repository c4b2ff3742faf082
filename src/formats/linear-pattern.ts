/**
 * Every regular expression that comes from a request, an alias or a
 * settings value (the `regexp` operator of filters, check_http
 * `match-regex=`, check_tcp `expect=`, glob patterns of check_files and
 * the allow-lists) runs here, on re2js: RE2's syntax and its guarantee of
 * time linear in the text (and the pattern), never backtracking. A pattern
 * such as `(.*)*Z` on 100,000 characters takes milliseconds instead of
 * holding the event loop for ever. docs/checks.md "Checks and scripts" lists the
 * syntax; "Dependencies and why" says why re2js.
 *
 * Linear is not cheap: every pattern also has a bounded cost
 * (pattern-cost.ts): repetition counts and program size at compile time,
 * and program size × text length before each match.
 *
 * re2js is loaded on the first pattern, not at start (the bundle keeps it
 * external, like selfsigned).
 */
import { requirePackage } from '../package-require.js';
import { globToRe2 } from './glob-syntax.js';
import { chargeMatch, largestRepeat, MAX_PROGRAM_SIZE, MAX_REPEAT, refuseMatch } from './pattern-cost.js';

/** Longest pattern accepted, in characters (the work of a match grows with pattern times text). */
export const MAX_PATTERN_LENGTH = 512;

/** A compiled pattern: only `test`, so no caller can reach a backtracking method by mistake. */
export interface TextPattern {
  readonly source: string;
  test(text: string): boolean;
}

/** A pattern that is too long, too costly or not RE2 syntax; the message says why, for the requester. */
export class PatternError extends Error {}

/** A match refused before it runs, its cost being over the budget (pattern-cost.ts); thrown by `test`. */
export class PatternCostError extends PatternError {}

export interface PatternOptions {
  ignoreCase?: boolean;
  /** `.` matches a newline too. */
  dotAll?: boolean;
  /** `^` and `$` match at line ends too. */
  multiline?: boolean;
}

type Re2 = typeof import('re2js').RE2JS;
let re2: Re2 | undefined;

function engine(): Re2 {
  re2 ??= (requirePackage('re2js') as typeof import('re2js')).RE2JS;
  return re2;
}

/** Compile `pattern` (RE2 syntax) on the linear-time engine; throws PatternError. */
export function linearPattern(pattern: string, options: PatternOptions = {}): TextPattern {
  checkLength(pattern);
  return compile(pattern, options);
}

function checkLength(pattern: string): void {
  if (pattern.length > MAX_PATTERN_LENGTH)
    throw new PatternError(
      `the pattern is ${pattern.length} characters long; at most ${MAX_PATTERN_LENGTH} are allowed`,
    );
}

function compile(pattern: string, options: PatternOptions): TextPattern {
  const RE2JS = engine();
  const flags =
    (options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) |
    (options.dotAll ? RE2JS.DOTALL : 0) |
    (options.multiline ? RE2JS.MULTILINE : 0);
  let compiled: ReturnType<Re2['compile']>;
  try {
    compiled = RE2JS.compile(pattern, flags);
  } catch (err) {
    // re2js says "error parsing regexp: invalid or unsupported Perl syntax: `(?=`" and the like.
    throw new PatternError(`${(err as Error).message} (RE2 syntax: no backreferences or lookaround)`);
  }
  const repeat = largestRepeat(pattern);
  if (repeat > MAX_REPEAT)
    throw new PatternError(
      `the pattern repeats ${repeat} times; a repetition count above ${MAX_REPEAT} is not allowed`,
    );
  const size = compiled.programSize();
  if (size > MAX_PROGRAM_SIZE)
    throw new PatternError(
      `the pattern compiles to ${size} instructions; at most ${MAX_PROGRAM_SIZE} are allowed (repetitions multiply it)`,
    );
  return {
    source: pattern,
    test: (text) => {
      const refused = refuseMatch(size, text.length);
      if (refused !== undefined) throw new PatternCostError(refused);
      const started = performance.now();
      try {
        return compiled.matcher(text).find();
      } finally {
        chargeMatch(performance.now() - started);
      }
    },
  };
}

/**
 * A glob (glob-syntax.ts lists the subset) as a linear-time matcher;
 * throws PatternError for a glob outside that subset.
 */
export function linearGlob(glob: string, options: { ignoreCase?: boolean; dot?: boolean } = {}): TextPattern {
  checkLength(glob);
  let source: string;
  try {
    source = globToRe2(glob, { dot: options.dot });
  } catch (err) {
    throw new PatternError((err as Error).message);
  }
  const compiled = compile(source, { ignoreCase: options.ignoreCase });
  return { source: glob, test: (text) => compiled.test(text) };
}
