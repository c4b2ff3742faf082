import { inRange } from '../../in-range.js';
/**
 * Tokens of the check expression language (`load > 80`, `used gt 90%`,
 * `name in ('sda1', 'sdb1')`). Every token carries its 1-based column so
 * that errors can point at the problem. The lexer never throws anything but
 * an ExpressionError.
 */

export type TokenKind = 'number' | 'string' | 'ident' | 'op' | 'lparen' | 'rparen' | 'comma' | 'end';

export interface Token {
  kind: TokenKind;
  /** Source text of the token (for strings: the unquoted value; for ops: the canonical operator). */
  text: string;
  /** 1-based column of the first character. */
  pos: number;
  /** For numbers: the value before any suffix. */
  value?: number;
  /** For numbers: the suffix as written, lower-cased (`k`, `gb`, `h`, `%`), or ''. */
  suffix?: string;
}

/** A problem in an expression, with the 1-based column where it was found. */
export class ExpressionError extends Error {
  readonly pos: number;
  constructor(message: string, pos: number) {
    super(message);
    this.name = 'ExpressionError';
    this.pos = pos;
  }
}

/** Word operators that shells do not mangle, mapped to their symbols. */
const WORD_OPS: Readonly<Record<string, string>> = {
  eq: '=',
  ne: '!=',
  gt: '>',
  lt: '<',
  ge: '>=',
  le: '<=',
  and: 'and',
  or: 'or',
  not: 'not',
  in: 'in',
  like: 'like',
  regexp: 'regexp',
};

const SYMBOL_OPS: readonly [string, string][] = [
  ['>=', '>='],
  ['<=', '<='],
  ['!=', '!='],
  ['<>', '!='],
  ['==', '='],
  ['&&', 'and'],
  ['||', 'or'],
  ['=', '='],
  ['>', '>'],
  ['<', '<'],
  ['!', 'not'],
];

/** Split an expression into tokens; the last token is always `end`. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source.charAt(i);
    const pos = i + 1;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === '(') {
      tokens.push({ kind: 'lparen', text: '(', pos });
      i++;
      continue;
    }
    if (ch === ')') {
      tokens.push({ kind: 'rparen', text: ')', pos });
      i++;
      continue;
    }
    if (ch === ',') {
      tokens.push({ kind: 'comma', text: ',', pos });
      i++;
      continue;
    }
    if (ch === "'" || ch === '"') {
      const end = readQuoted(source, i);
      tokens.push({ kind: 'string', text: end.value, pos });
      i = end.next;
      continue;
    }
    if (/[0-9.]/.test(ch) || (ch === '-' && /[0-9.]/.test(source[i + 1] ?? ''))) {
      // A leading minus is a sign (there is no subtraction): `written > -1h`.
      const m = /^(-?(?:\d+(?:\.\d+)?|\.\d+))([a-zA-Z%]*)/.exec(source.slice(i));
      if (!m) throw new ExpressionError(`unexpected character '${ch}'`, pos);
      tokens.push({ kind: 'number', text: m[0], pos, value: Number(m[1]), suffix: inRange(m, 2).toLowerCase() });
      i += m[0].length;
      continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      const m = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(source.slice(i)) as RegExpExecArray;
      const word = m[0];
      const op = WORD_OPS[word.toLowerCase()];
      if (op !== undefined) tokens.push({ kind: 'op', text: op, pos });
      else if (word.toLowerCase() === 'str' && source[i + word.length] === '(') {
        // str(x): a string literal written without quotes, for shells that eat quotes.
        const close = source.indexOf(')', i + word.length);
        if (close < 0) throw new ExpressionError('str( has no closing )', pos);
        tokens.push({ kind: 'string', text: source.slice(i + word.length + 1, close), pos });
        i = close + 1;
        continue;
      } else tokens.push({ kind: 'ident', text: word, pos });
      i += word.length;
      continue;
    }
    const sym = SYMBOL_OPS.find(([s]) => source.startsWith(s, i));
    if (sym) {
      tokens.push({ kind: 'op', text: sym[1], pos });
      i += sym[0].length;
      continue;
    }
    throw new ExpressionError(`unexpected character '${ch}'`, pos);
  }
  tokens.push({ kind: 'end', text: '', pos: source.length + 1 });
  return tokens;
}

/** Read a quoted string starting at `start`; a doubled quote stands for one quote. */
function readQuoted(source: string, start: number): { value: string; next: number } {
  const quote = source.charAt(start);
  let value = '';
  let i = start + 1;
  while (i < source.length) {
    const c = source.charAt(i);
    if (c === quote) {
      if (source[i + 1] === quote) {
        value += quote;
        i += 2;
        continue;
      }
      return { value, next: i + 1 };
    }
    value += c;
    i++;
  }
  throw new ExpressionError(`string starting here has no closing ${quote}`, start + 1);
}
