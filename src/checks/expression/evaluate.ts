/**
 * Compile a parsed expression against the named values of a check into a
 * test function. Names are checked, literals take their meaning from the
 * value they are compared with: `1m` is a mebibyte next to a size and a
 * minute next to a time; `90%` next to a size compares its percentage
 * (`used > 90%` means `used_pct > 90`); `-1h` next to a date means an hour
 * ago. Every problem is an ExpressionError with the column to blame.
 */
import { linearPattern } from '../../formats/linear-pattern.js';
import { ExpressionError } from './lexer.js';
import { literal } from './literal.js';
import { parseExpression, type CompareOp, type ExprNode, type ValueNode } from './parser.js';

/**
 * `time` is seconds (a plain number is seconds); `ms` is milliseconds, the
 * unit of NSClient++'s network checks (a plain number is milliseconds,
 * `2s` is 2000).
 */
export type { Getter, Scalar, Scope, Values, VarDef, VarKind } from './values.js';
import type { Getter, Scope, VarDef, VarKind } from './values.js';

/** A comparison of a name with a number, kept so that perf data can show its threshold. */
export interface Threshold {
  name: string;
  op: CompareOp;
  /** In the name's own unit (bytes, seconds, percent, ...). */
  value: number;
  /** True when written as a percentage of a size (`used > 90%`). */
  viaPercent: boolean;
}

export interface Compiled {
  readonly source: string;
  test(scope: Scope): boolean;
  /** True when the expression names any item value (else it judges the summary). */
  readonly usesItem: boolean;
  readonly thresholds: readonly Threshold[];
}

/** Parse and compile; throws ExpressionError with the column of the first problem. */
export function compileExpression(
  source: string,
  itemVars: Readonly<Record<string, VarDef>>,
  summaryVars: Readonly<Record<string, VarDef>>,
): Compiled {
  const tree = parseExpression(source);
  const c = new Compiler(itemVars, summaryVars);
  const test = c.node(tree);
  return { source, test, usesItem: c.usesItem, thresholds: c.thresholds };
}

class Compiler {
  usesItem = false;
  readonly thresholds: Threshold[] = [];
  constructor(
    private readonly itemVars: Readonly<Record<string, VarDef>>,
    private readonly summaryVars: Readonly<Record<string, VarDef>>,
  ) {}

  node(n: ExprNode): (s: Scope) => boolean {
    switch (n.type) {
      case 'or': {
        const a = this.node(n.left);
        const b = this.node(n.right);
        return (s) => a(s) || b(s);
      }
      case 'and': {
        const a = this.node(n.left);
        const b = this.node(n.right);
        return (s) => a(s) && b(s);
      }
      case 'not': {
        const a = this.node(n.operand);
        return (s) => !a(s);
      }
      case 'truthy': {
        const v = n.value as Extract<ValueNode, { type: 'var' }>;
        const def = this.lookup(v);
        if (def.kind !== 'bool')
          throw new ExpressionError(
            `'${v.name}' is not a yes/no value; compare it with something (for example ${v.name} > 0)`,
            v.pos,
          );
        const get = this.getter(v);
        return (s) => Boolean(get(s));
      }
      case 'cmp':
        return this.compare(n.op, n.left, n.right);
      case 'in': {
        const tests = n.list.map((item) => this.compare('=', n.left, item));
        return n.negate ? (s) => !tests.some((t) => t(s)) : (s) => tests.some((t) => t(s));
      }
      case 'match': {
        const left = this.side(n.left, n.right);
        if (left.kind !== 'string' || n.right.type !== 'str')
          throw new ExpressionError(`${n.kind} compares a text value with a quoted text`, n.pos);
        const pattern = n.right.value;
        let re: { test(text: string): boolean };
        if (n.kind === 'regexp') {
          try {
            re = linearPattern(pattern);
          } catch (err) {
            throw new ExpressionError(`invalid regular expression: ${(err as Error).message}`, n.right.pos);
          }
        } else {
          const lower = pattern.toLowerCase();
          re = { test: (t: string) => t.toLowerCase().includes(lower) };
        }
        const get = left.get;
        const test = (s: Scope): boolean => {
          const v = get(s);
          return v !== undefined && re.test(String(v));
        };
        return n.negate ? (s) => !test(s) : test;
      }
    }
  }

  private compare(op: CompareOp, l: ValueNode, r: ValueNode): (s: Scope) => boolean {
    const left = this.side(l, r);
    const right = this.side(r, l);
    const numeric = left.kind !== 'string' || right.kind !== 'string';
    if (numeric && (left.kind === 'string' || right.kind === 'string')) {
      const bad = r.type !== 'var' ? r : l.type !== 'var' ? l : r;
      throw new ExpressionError(
        `cannot compare text with a number here (quote numbers meant as text, or compare a number value)`,
        bad.pos,
      );
    }
    this.noteThreshold(op, l, r);
    const cmp = COMPARE[op];
    const a = left.get;
    const b = right.get;
    return (s) => {
      const x = a(s);
      const y = b(s);
      if (x === undefined || y === undefined) return false;
      return numeric ? cmp(Number(x), Number(y)) : cmp(String(x), String(y));
    };
  }

  /** Compile one side of a comparison; `other` gives a literal its unit. */
  private side(v: ValueNode, other: ValueNode): { kind: VarKind; get: Getter } {
    if (v.type === 'var') {
      const def = this.lookup(v);
      if (other.type === 'num' && other.suffix === '%' && def.kind === 'size') {
        if (!def.pct) throw new ExpressionError(`'${v.name}' has no percentage; compare it with a size`, other.pos);
        const pctName = def.pct;
        return { kind: 'percent', get: this.getter({ type: 'var', name: pctName, pos: v.pos }) };
      }
      return { kind: def.kind, get: this.getter(v) };
    }
    if (v.type === 'str') {
      const value = v.value;
      if (other.type === 'var') {
        const k = this.lookup(other).kind;
        if (k === 'bool') {
          const b = /^(true|yes|1)$/i.test(value);
          return { kind: 'bool', get: () => b };
        }
      }
      return { kind: 'string', get: () => value };
    }
    const kind = other.type === 'var' ? this.lookup(other).kind : 'number';
    // `used > 90%` compares used_pct (see the var side) with a plain 90.
    if (v.suffix === '%' && kind === 'size') return literal(v, 'percent');
    return literal(v, kind);
  }

  private noteThreshold(op: CompareOp, l: ValueNode, r: ValueNode): void {
    const [name, num, flipped] =
      l.type === 'var' && r.type === 'num'
        ? [l, r, false]
        : r.type === 'var' && l.type === 'num'
          ? [r, l, true]
          : [undefined, undefined, false];
    // num is set whenever name is (one tuple or the other).
    if (!name) return;
    const def = this.lookup(name);
    if (def.kind === 'date' || def.kind === 'string') return;
    const viaPercent = num.suffix === '%' && def.kind === 'size';
    const value = viaPercent ? num.value : (literal(num, def.kind).get({ summary: {}, now: 0 }) as number);
    this.thresholds.push({ name: name.name, op: flipped ? FLIP[op] : op, value, viaPercent });
  }

  private lookup(v: Extract<ValueNode, { type: 'var' }>): VarDef {
    const item = this.itemVars[v.name];
    if (item) return item;
    const summary = this.summaryVars[v.name];
    if (summary) return summary;
    const known = [...Object.keys(this.itemVars), ...Object.keys(this.summaryVars)].join(', ');
    throw new ExpressionError(`unknown name '${v.name}' (known: ${known})`, v.pos);
  }

  private getter(v: Extract<ValueNode, { type: 'var' }>): Getter {
    const name = v.name;
    if (this.itemVars[name]) {
      this.usesItem = true;
      return (s) => s.item?.[name];
    }
    if (this.summaryVars[name]) return (s) => s.summary[name];
    this.lookup(v);
    return () => undefined;
  }
}

const COMPARE: Readonly<Record<CompareOp, (a: number | string, b: number | string) => boolean>> = {
  '=': (a, b) => a === b,
  '!=': (a, b) => a !== b,
  '>': (a, b) => a > b,
  '<': (a, b) => a < b,
  '>=': (a, b) => a >= b,
  '<=': (a, b) => a <= b,
};

const FLIP: Readonly<Record<CompareOp, CompareOp>> = {
  '=': '=',
  '!=': '!=',
  '>': '<',
  '<': '>',
  '>=': '<=',
  '<=': '>=',
};
