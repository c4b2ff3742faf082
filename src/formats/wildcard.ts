/**
 * The plain wildcard both settings grammars share: `*` any run of
 * characters (none included), `?` one character, every other character
 * itself. Include patterns (`[/includes] x = conf.d/*.ini`, matched
 * case-sensitively against file names: settings/includes.ts) are only
 * this; the protocol servers' allow-lists (command-allow-list.ts) are
 * micromatch patterns, matched case-insensitively, of which this is the
 * fast path for names without braces, classes or extglobs (for those,
 * micromatch's `*` and `?` mean the same, as a command name has no `/`).
 */
export function wildcardToRegExp(pattern: string, options: { ignoreCase?: boolean } = {}): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\/-]/g, '\\$&').replace(/\*+/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, options.ignoreCase ? 'is' : 's');
}
