/**
 * The plain wildcard both settings grammars share: `*` any run of
 * characters (none included), `?` one character, every other character
 * itself. Include patterns (`[/includes] x = conf.d/*.ini`, matched
 * case-sensitively against file names: settings/store/includes.ts) are only
 * this; the protocol servers' allow-lists (command-allow-list.ts) are
 * globs (glob-syntax.ts), matched case-insensitively, of which this is the
 * fast path for names without braces, classes or extglobs (for those,
 * the glob's `*` and `?` mean the same, as a command name has no `/`).
 *
 * Matched by the two-pointer walk (remember the last `*` and retry one
 * character further), not a regular expression: at most pattern length
 * times text length steps, where a backtracking `^a.*b.*c…$` grows with a
 * power of the text length (docs/checks.md "Checks and scripts", linear matching).
 */
export interface Wildcard {
  test(text: string): boolean;
}

export function wildcardPattern(pattern: string, options: { ignoreCase?: boolean } = {}): Wildcard {
  const fold = (s: string): string => (options.ignoreCase ? s.toLowerCase() : s);
  const p = fold(pattern).replace(/\*+/g, '*');
  return { test: (text) => wildcardMatch(p, fold(text)) };
}

function wildcardMatch(p: string, t: string): boolean {
  let pi = 0;
  let ti = 0;
  let star = -1;
  let resume = 0;
  while (ti < t.length) {
    if (pi < p.length && (p[pi] === '?' || (p[pi] !== '*' && p[pi] === t[ti]))) {
      pi++;
      ti++;
    } else if (pi < p.length && p[pi] === '*') {
      star = pi++;
      resume = ti;
    } else if (star >= 0) {
      pi = star + 1;
      ti = ++resume;
    } else {
      return false;
    }
  }
  while (pi < p.length && p[pi] === '*') pi++;
  return pi === p.length;
}
