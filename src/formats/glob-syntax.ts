/**
 * A glob as an RE2 expression (run by linear-pattern.ts), for the globs of
 * requests and settings: check_files `pattern=`, check_logfile `file=`, the
 * allow-lists. The subset below (micromatch's meaning, which the agent
 * used before; micromatch's own expressions need lookaround, which a
 * linear-time engine cannot run) is translated here:
 *
 * - `*` any run within one path segment, `?` one character but `/`,
 *   `**` as a whole segment any run of segments (none included);
 * - `[abc]`, `[a-z]`, `[!a]` / `[^a]` a character class;
 * - `{a,b}` one of the alternatives (nested allowed), `{1..3}` not;
 * - extglobs `@(a|b)`, `?(a|b)`, `*(a|b)`, `+(a|b)`; `!(a|b)` is refused;
 * - `\x` the character x; everything else itself.
 *
 * With `dot` off, a `*`, `?` or class at the start of a segment does not
 * match a leading `.` (hidden files), as in micromatch.
 */
export class GlobSyntaxError extends Error {}

export function globToRe2(glob: string, options: { dot?: boolean } = {}): string {
  const out = new Translator(glob, options.dot === true).run();
  return `^(?:${out})$`;
}

const SPECIAL = /[\\.+^$|(){}[\]*?]/;

class Translator {
  private i = 0;
  constructor(
    private readonly g: string,
    private readonly dot: boolean,
  ) {}

  run(): string {
    const out = this.sequence('');
    if (this.i < this.g.length)
      throw new GlobSyntaxError(`unexpected ${this.g[this.i]} at position ${this.i + 1} of ${this.g}`);
    return out;
  }

  /** Until one of `stops` (not consumed) or the end. */
  private sequence(stops: string): string {
    let out = '';
    while (this.i < this.g.length && !stops.includes(this.g.charAt(this.i))) out += this.atom();
    return out;
  }

  private atStart(): boolean {
    return this.i === 0 || this.g[this.i - 1] === '/';
  }

  /** Called with `i` inside the glob. */
  private atom(): string {
    const g = this.g;
    const c = g.charAt(this.i);
    const next = g.charAt(this.i + 1);
    const noDot = !this.dot && this.atStart() ? '(?:[^./]' : undefined;
    if ('@?*+!'.includes(c) && next === '(') return this.extglob(c);
    if (c === '*') {
      if (next === '*' && this.atStart() && (g[this.i + 2] === '/' || this.i + 2 === g.length)) {
        this.i += g[this.i + 2] === '/' ? 3 : 2;
        return g[this.i - 1] === '/' ? '(?:[^/]*(?:/[^/]*)*/)?' : '.*';
      }
      while (g[this.i] === '*') this.i++;
      return noDot ? `${noDot}[^/]*)?` : '[^/]*';
    }
    this.i++;
    if (c === '?') return noDot ? '[^./]' : '[^/]';
    if (c === '\\') {
      if (this.i >= g.length) throw new GlobSyntaxError(`${g} ends with a backslash`);
      return escape(g.charAt(this.i++));
    }
    if (c === '[') return this.charClass();
    if (c === '{') return this.braces();
    return escape(c);
  }

  private charClass(): string {
    const g = this.g;
    const end = g.indexOf(']', this.i + 1);
    if (end < 0) return '\\[';
    let body = g.slice(this.i, end);
    this.i = end + 1;
    let negate = false;
    if (body.startsWith('!') || body.startsWith('^')) {
      negate = true;
      body = body.slice(1);
    }
    body = body.replace(/[\\\]^[]/g, (m) => `\\${m}`);
    return negate ? `[^/${body}]` : `[${body}]`;
  }

  private braces(): string {
    const alternatives: string[] = [];
    for (;;) {
      alternatives.push(this.sequence(',}'));
      if (this.i >= this.g.length) throw new GlobSyntaxError(`unclosed { in ${this.g}`);
      if (this.g[this.i++] === '}') break;
    }
    return `(?:${alternatives.join('|')})`;
  }

  private extglob(kind: string): string {
    if (kind === '!')
      throw new GlobSyntaxError(`!(…) in ${this.g} is not supported; list a negated pattern (!name) instead`);
    this.i += 2;
    const alternatives: string[] = [];
    for (;;) {
      alternatives.push(this.sequence('|)'));
      if (this.i >= this.g.length) throw new GlobSyntaxError(`unclosed ( in ${this.g}`);
      if (this.g[this.i++] === ')') break;
    }
    const group = `(?:${alternatives.join('|')})`;
    return kind === '@' ? group : `${group}${kind}`;
  }
}

function escape(c: string): string {
  return SPECIAL.test(c) ? `\\${c}` : c;
}
