/**
 * The cost bound of every pattern from outside (linear-pattern.ts runs
 * them). RE2's time is linear in the text, but the factor is the size of
 * the compiled program: `.{1000}` written 73 times is 511 characters and a
 * 73,000-instruction program, and re2js's automaton then spends up to about
 * 17 ns per instruction and character (measured on re2js 2.10 with `(?i)`
 * and no literal to skip to; a literal or the lazy DFA makes it 10 to 100
 * times less). So before a match runs:
 *
 * - a pattern's repetition counts (`{n}`, `{n,m}`) are at most MAX_REPEAT
 *   and its program at most MAX_PROGRAM_SIZE instructions (compile time);
 * - one match costs (program size + PER_CHARACTER) × (text length + 1)
 *   units, and a match above MAX_MATCH_COST is refused;
 * - the matches since the event loop last turned, of every request
 *   together, stay under MAX_MATCH_COST too, so the loop (web
 *   `/core/isalive`, SIGTERM) never waits more than one budget: about 0.5 s
 *   at the worst rate above;
 * - the matches of one request (a web, NRPE or agent-protocol query, the
 *   queries it runs included: core-impl.ts opens the scope) stop once they
 *   have taken REQUEST_MATCH_MS of time, so the answer comes in bounded time.
 *
 * A refused match throws: the check answers UNKNOWN with the reason.
 * docs/checks.md "Patterns" lists the limits.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Largest repetition count (`a{100}`): RE2's own limit of 1,000 lets 7 characters become 1,000 instructions. */
export const MAX_REPEAT = 100;
/** Largest compiled program, in instructions (re2js's programSize). */
export const MAX_PROGRAM_SIZE = 2000;
/** Units a match costs per character besides the program: the matcher's own work per character. */
export const PER_CHARACTER = 8;
/** Units one match, and all matches within one turn of the event loop, may cost. */
export const MAX_MATCH_COST = 30_000_000;
/** Milliseconds the matches of one request may take in all. */
export const REQUEST_MATCH_MS = 1000;

interface RequestScope {
  spentMs: number;
}
/** Made at the first request scope: node loads AsyncLocalStorage's code when one is first made, which a start need not pay. */
let requests: AsyncLocalStorage<RequestScope> | undefined;

/**
 * Run `fn` as one request: every match it starts, also after an await and in
 * the queries it runs, counts against one REQUEST_MATCH_MS. Inside a scope
 * already open, `fn` shares that one.
 */
export function withPatternScope<T>(fn: () => T): T {
  if (requests?.getStore()) return fn();
  return (requests ??= new AsyncLocalStorage<RequestScope>()).run({ spentMs: 0 }, fn);
}

let turnSpent = 0;
let turnOpen = false;

/**
 * Why a match of a `programSize` program over `textLength` characters may
 * not run now, or undefined (the match is then charged to this turn).
 */
export function refuseMatch(programSize: number, textLength: number): string | undefined {
  const cost = (programSize + PER_CHARACTER) * (textLength + 1);
  if (cost > MAX_MATCH_COST)
    return `matching a pattern of ${programSize} instructions against ${textLength} characters would cost ${cost} units, more than the ${MAX_MATCH_COST} one match may cost; use a shorter pattern or less text`;
  const scope = requests?.getStore();
  if (scope && scope.spentMs > REQUEST_MATCH_MS)
    return `the patterns of this request have taken more than ${REQUEST_MATCH_MS} ms; the rest is not matched`;
  if (!turnOpen) {
    turnOpen = true;
    turnSpent = 0;
    setImmediate(() => (turnOpen = false));
  }
  if (turnSpent + cost > MAX_MATCH_COST)
    return `the patterns matched since the agent last served its sockets would cost more than ${MAX_MATCH_COST} units with this one; the rest is not matched`;
  turnSpent += cost;
  return undefined;
}

/** Count `ms` of matching against the current request (if any). */
export function chargeMatch(ms: number): void {
  const scope = requests?.getStore();
  if (scope) scope.spentMs += ms;
}

/**
 * The largest repetition count written in an RE2 `pattern` (0 without one):
 * `{n}`, `{n,}` and `{n,m}` outside character classes, escapes and
 * `\Q…\E`. A `{` that is not a repetition is a literal for RE2 and here.
 */
export function largestRepeat(pattern: string): number {
  let largest = 0;
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === '\\') i = afterEscape(pattern, i);
    else if (c === '[') i = afterClass(pattern, i);
    else if (c === '{') {
      const m = /^\{(\d+)(?:,(\d*))?\}/.exec(pattern.slice(i, i + 32));
      if (m) {
        largest = Math.max(largest, Number(m[1]), m[2] ? Number(m[2]) : 0);
        i += m[0].length;
      } else i++;
    } else i++;
  }
  return largest;
}

/** The index after the escape at `i`: `\Q…\E`, `\x{…}`, `\p{…}`, `\P{…}` or one character. */
function afterEscape(pattern: string, i: number): number {
  const next = pattern[i + 1];
  if (next === 'Q') {
    const end = pattern.indexOf('\\E', i + 2);
    return end < 0 ? pattern.length : end + 2;
  }
  if ((next === 'x' || next === 'p' || next === 'P') && pattern[i + 2] === '{') {
    const end = pattern.indexOf('}', i + 3);
    return end < 0 ? pattern.length : end + 1;
  }
  return i + 2;
}

/** The index after the character class opening at `i` (`[]a]`, `[^]a]`, `[[:alpha:]]`, escapes inside). */
function afterClass(pattern: string, i: number): number {
  let j = i + 1;
  if (pattern[j] === '^') j++;
  if (pattern[j] === ']') j++;
  while (j < pattern.length && pattern[j] !== ']') {
    if (pattern[j] === '\\') j = afterEscape(pattern, j);
    else if (pattern.startsWith('[:', j)) {
      const end = pattern.indexOf(':]', j + 2);
      j = end < 0 ? j + 1 : end + 2;
    } else j++;
  }
  return j + 1;
}
