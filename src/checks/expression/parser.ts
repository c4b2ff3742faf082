/**
 * Parser of the check expression language into a small tree. Grammar:
 *
 *   expr    := and ('or' and)*
 *   and     := unary ('and' unary)*
 *   unary   := 'not' unary | compare
 *   compare := operand [ op operand | ['not'] 'in' '(' operand (',' operand)* ')'
 *                       | ['not'] ('like' | 'regexp') operand ]
 *   operand := number[suffix] | '-' number[suffix] | string | name | '(' expr ')'
 *
 * The parser knows nothing about variables; evaluate.ts checks names and
 * types. Every error is an ExpressionError with the column of the problem.
 */
import { ExpressionError, tokenize, type Token } from './lexer.js';
import { inRange } from '../../in-range.js';

export type CompareOp = '=' | '!=' | '>' | '<' | '>=' | '<=';

export type ValueNode =
  | { type: 'var'; name: string; pos: number }
  | { type: 'num'; value: number; suffix: string; pos: number }
  | { type: 'str'; value: string; pos: number };

export type ExprNode =
  | { type: 'or' | 'and'; left: ExprNode; right: ExprNode; pos: number }
  | { type: 'not'; operand: ExprNode; pos: number }
  | { type: 'cmp'; op: CompareOp; left: ValueNode; right: ValueNode; pos: number }
  | { type: 'in'; negate: boolean; left: ValueNode; list: ValueNode[]; pos: number }
  | { type: 'match'; kind: 'like' | 'regexp'; negate: boolean; left: ValueNode; right: ValueNode; pos: number }
  | { type: 'truthy'; value: ValueNode; pos: number };

const COMPARE_OPS = new Set<string>(['=', '!=', '>', '<', '>=', '<=']);

/** Parse an expression; throws ExpressionError (with a column) on any problem. */
export function parseExpression(source: string): ExprNode {
  if (source.trim() === '') throw new ExpressionError('the expression is empty', 1);
  const p = new Parser(tokenize(source));
  const node = p.expr();
  const t = p.peek();
  if (t.kind !== 'end') throw new ExpressionError(`unexpected '${t.text}' after a complete expression`, t.pos);
  return node;
}

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  // The last token is `end` (tokenize), which next() never moves past: `i` stays in range.
  peek(): Token {
    return inRange(this.tokens, this.i);
  }

  private next(): Token {
    const t = inRange(this.tokens, this.i);
    if (t.kind !== 'end') this.i++;
    return t;
  }

  private isOp(text: string, offset = 0): boolean {
    const t = this.tokens[this.i + offset];
    return t !== undefined && t.kind === 'op' && t.text === text;
  }

  expr(): ExprNode {
    let left = this.and();
    while (this.isOp('or')) {
      const pos = this.next().pos;
      left = { type: 'or', left, right: this.and(), pos };
    }
    return left;
  }

  private and(): ExprNode {
    let left = this.unary();
    while (this.isOp('and')) {
      const pos = this.next().pos;
      left = { type: 'and', left, right: this.unary(), pos };
    }
    return left;
  }

  private unary(): ExprNode {
    if (this.isOp('not')) {
      const pos = this.next().pos;
      return { type: 'not', operand: this.unary(), pos };
    }
    return this.compare();
  }

  private compare(): ExprNode {
    const start = this.peek();
    if (start.kind === 'lparen') {
      this.next();
      const inner = this.expr();
      this.expect('rparen', "')'");
      return inner;
    }
    const left = this.operand();
    const t = this.peek();
    if (t.kind === 'op' && COMPARE_OPS.has(t.text)) {
      this.next();
      return { type: 'cmp', op: t.text as CompareOp, left, right: this.operand(), pos: t.pos };
    }
    const negate = this.isOp('not') && (this.isOp('in', 1) || this.isOp('like', 1) || this.isOp('regexp', 1));
    if (negate) this.next();
    if (this.isOp('in')) {
      const pos = this.next().pos;
      this.expect('lparen', "'(' after in");
      const list: ValueNode[] = [this.operand()];
      while (this.peek().kind === 'comma') {
        this.next();
        list.push(this.operand());
      }
      this.expect('rparen', "')' closing the in list");
      return { type: 'in', negate, left, list, pos };
    }
    if (this.isOp('like') || this.isOp('regexp')) {
      const op = this.next();
      return { type: 'match', kind: op.text as 'like' | 'regexp', negate, left, right: this.operand(), pos: op.pos };
    }
    if (left.type === 'var') return { type: 'truthy', value: left, pos: left.pos };
    const what = t.kind === 'end' ? 'the end' : `'${t.text}'`;
    throw new ExpressionError(`expected an operator such as >, <, =, in after the value, found ${what}`, t.pos);
  }

  private operand(): ValueNode {
    const t = this.next();
    if (t.kind === 'number') return { type: 'num', value: t.value as number, suffix: t.suffix ?? '', pos: t.pos };
    if (t.kind === 'string') return { type: 'str', value: t.text, pos: t.pos };
    if (t.kind === 'ident') return { type: 'var', name: t.text, pos: t.pos };
    if (t.kind === 'end') throw new ExpressionError('expected a value, found the end of the expression', t.pos);
    throw new ExpressionError(`expected a value, found '${t.text}'`, t.pos);
  }

  private expect(kind: Token['kind'], what: string): Token {
    const t = this.next();
    if (t.kind !== kind)
      throw new ExpressionError(`expected ${what}, found ${t.kind === 'end' ? 'the end' : `'${t.text}'`}`, t.pos);
    return t;
  }
}
