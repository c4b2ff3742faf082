/**
 * Number literals of an expression, read in the unit of the value they are
 * compared with: `1m` is a mebibyte next to a size and a minute next to a
 * time, `2s` is 2000 next to milliseconds, `-1h` next to a date is an hour ago.
 */
import { ExpressionError } from './lexer.js';
import type { ValueNode } from './parser.js';
import type { Getter, VarKind } from './values.js';

const SIZE: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1024 ** 4,
};
const TIME: Readonly<Record<string, number>> = { '': 1, ms: 0.001, s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/** A number literal read in the unit of the value it is compared with. */
export function literal(v: ValueNode, kind: VarKind): { kind: VarKind; get: Getter } {
  if (v.type !== 'num') throw new ExpressionError('expected a number', v.pos);
  const { value, suffix } = v;
  const bad = (what: string): never => {
    throw new ExpressionError(`suffix '${suffix}' does not fit ${what}`, v.pos);
  };
  switch (kind) {
    case 'size': {
      const m = SIZE[suffix];
      if (m === undefined) return bad('a size (use b, k, m, g, t or %)');
      return { kind: 'number', get: () => value * m };
    }
    case 'time': {
      const m = TIME[suffix];
      if (m === undefined) return bad('a time (use s, m, h, d or w)');
      return { kind: 'number', get: () => value * m };
    }
    case 'ms': {
      const m = TIME[suffix];
      if (m === undefined) return bad('a time in milliseconds (use ms, s, m, h, d or w)');
      const factor = suffix === '' ? 1 : m * 1000;
      return { kind: 'number', get: () => value * factor };
    }
    case 'date': {
      const m = TIME[suffix];
      if (m === undefined) return bad('a date (use a time such as -1h for an hour ago)');
      // Dates compare with now + offset: negative offsets lie in the past.
      return { kind: 'number', get: (s) => s.now + value * m };
    }
    case 'percent':
      if (suffix !== '' && suffix !== '%') return bad('a percentage');
      return { kind: 'number', get: () => value };
    case 'bool':
    case 'number':
    case 'string': {
      if (suffix === '') return { kind: 'number', get: () => value };
      const m = SIZE[suffix];
      if (m !== undefined && suffix !== 'm' && suffix !== 'b') return { kind: 'number', get: () => value * m };
      return bad('a plain number');
    }
  }
}
