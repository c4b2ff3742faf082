import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileExpression, type VarDef, type Values } from '../../../../src/checks/expression/evaluate.js';
import { ExpressionError } from '../../../../src/checks/expression/lexer.js';

const VARS: Record<string, VarDef> = {
  load: { kind: 'percent', description: '' },
  used: { kind: 'size', description: '', pct: 'used_pct', of: 'size' },
  used_pct: { kind: 'percent', description: '' },
  free: { kind: 'size', description: '', pct: 'free_pct', of: 'size' },
  free_pct: { kind: 'percent', description: '' },
  size: { kind: 'size', description: '' },
  uptime: { kind: 'time', description: '' },
  written: { kind: 'date', description: '' },
  name: { kind: 'string', description: '' },
  readonly: { kind: 'bool', description: '' },
};
const SUMMARY: Record<string, VarDef> = { count: { kind: 'number', description: '' } };

function check(expr: string, item: Values, now = 1_000_000): boolean {
  return compileExpression(expr, VARS, SUMMARY).test({ item, summary: { count: 3 }, now });
}

void test('numbers compare at, just under and just over the limit', () => {
  assert.equal(check('load > 80', { load: 80 }), false);
  assert.equal(check('load > 80', { load: 80.01 }), true);
  assert.equal(check('load > 80', { load: 79.99 }), false);
  assert.equal(check('load >= 80', { load: 80 }), true);
  assert.equal(check('load < 80', { load: 79.99 }), true);
  assert.equal(check('load <= 80', { load: 80 }), true);
  assert.equal(check('load = 80', { load: 80 }), true);
  assert.equal(check('load != 80', { load: 80 }), false);
});

void test('word operators mean the same as the symbols', () => {
  for (const [word, sym] of [
    ['gt', '>'],
    ['lt', '<'],
    ['ge', '>='],
    ['le', '<='],
    ['eq', '='],
    ['ne', '!='],
  ]) {
    for (const v of [79, 80, 81])
      assert.equal(check(`load ${word} 80`, { load: v }), check(`load ${sym} 80`, { load: v }), `${word} at ${v}`);
  }
});

void test('size suffixes are 1024-based and percentages use the _pct value', () => {
  assert.equal(check('free < 1g', { free: 1024 ** 3 - 1 }), true);
  assert.equal(check('free < 1g', { free: 1024 ** 3 }), false);
  assert.equal(check('free < 1m', { free: 1024 ** 2 - 1 }), true, 'm next to a size is a mebibyte');
  assert.equal(check('free < 2k', { free: 2047 }), true);
  assert.equal(check('free < 2kb', { free: 2048 }), false);
  assert.equal(check('free > 1t', { free: 1024 ** 4 + 1 }), true);
  assert.equal(check('used > 90%', { used: 1, used_pct: 90 }), false);
  assert.equal(check('used > 90%', { used: 1, used_pct: 90.5 }), true);
  assert.equal(check('free < 10%', { free_pct: 9.9 }), true);
});

void test('time suffixes are seconds-based; m next to a time is a minute', () => {
  assert.equal(check('uptime < 1h', { uptime: 3599 }), true);
  assert.equal(check('uptime < 1h', { uptime: 3600 }), false);
  assert.equal(check('uptime < 1m', { uptime: 59 }), true);
  assert.equal(check('uptime > 2d', { uptime: 2 * 86400 + 1 }), true);
  assert.equal(check('uptime > 1w', { uptime: 604800 }), false);
  assert.equal(check('uptime > 30s', { uptime: 31 }), true);
});

void test('negative times next to a date mean ago', () => {
  const now = 1_000_000;
  assert.equal(check('written < -1h', { written: now - 3601 }, now), true);
  assert.equal(check('written < -1h', { written: now - 3599 }, now), false);
});

void test('strings, in, not in, like, regexp, str()', () => {
  assert.equal(check("name = 'sda1'", { name: 'sda1' }), true);
  assert.equal(check("name != 'sda1'", { name: 'sda1' }), false);
  assert.equal(check('name = str(sda1)', { name: 'sda1' }), true);
  assert.equal(check("name in ('sda1', 'sdb1')", { name: 'sdb1' }), true);
  assert.equal(check("name not in ('sda1', 'sdb1')", { name: 'sdb1' }), false);
  assert.equal(check("name like 'DA'", { name: 'sda1' }), true);
  assert.equal(check("name not like 'xx'", { name: 'sda1' }), true);
  assert.equal(check("name regexp '^sd[a-z][0-9]$'", { name: 'sda1' }), true);
  assert.equal(check("name = 'it''s'", { name: "it's" }), true);
});

void test('and, or, not, parentheses and precedence', () => {
  assert.equal(check('load > 10 and load < 20', { load: 15 }), true);
  assert.equal(check('load > 10 and load < 20', { load: 25 }), false);
  assert.equal(check('load < 10 or load > 20 and load < 30', { load: 5 }), true, 'and binds tighter than or');
  assert.equal(check('(load < 10 or load > 20) and load < 30', { load: 35 }), false);
  assert.equal(check('not load > 10', { load: 5 }), true);
  assert.equal(check('readonly', { readonly: true }), true);
  assert.equal(check("readonly = 'false'", { readonly: false }), true);
});

void test('summary names compare and mark the expression as summary-only', () => {
  const c = compileExpression('count > 2', VARS, SUMMARY);
  assert.equal(c.usesItem, false);
  assert.equal(c.test({ summary: { count: 3 }, now: 0 }), true);
  assert.equal(compileExpression('load > 2 and count > 1', VARS, SUMMARY).usesItem, true);
});

void test('thresholds are recorded in the unit of the value', () => {
  assert.deepEqual(compileExpression('used > 90%', VARS, SUMMARY).thresholds, [
    { name: 'used', op: '>', value: 90, viaPercent: true },
  ]);
  assert.deepEqual(compileExpression('free < 1g', VARS, SUMMARY).thresholds, [
    { name: 'free', op: '<', value: 1024 ** 3, viaPercent: false },
  ]);
  assert.deepEqual(compileExpression('80 < load', VARS, SUMMARY).thresholds, [
    { name: 'load', op: '>', value: 80, viaPercent: false },
  ]);
});

void test('wrong expressions throw ExpressionError with the column of the problem', () => {
  const cases: [string, number, RegExp][] = [
    ['load >> 80', 7, /expected a value/],
    ['lod > 80', 1, /unknown name 'lod'/],
    ['load > ', 8, /end of the expression/],
    ["name = 'x", 8, /no closing/],
    ['load > 80 80', 11, /unexpected '80'/],
    ['(load > 80', 11, /expected '\)'/],
    ['load > 80x', 8, /suffix 'x'/],
    ['uptime < 1g', 10, /suffix 'g' does not fit a time/],
    ['name > 5', 8, /cannot compare text/],
    ['load # 3', 6, /unexpected character '#'/],
    ['', 1, /empty/],
    ["name regexp '('", 13, /invalid regular expression/],
    ['load', 1, /not a yes\/no value/],
    ['size > 5%', 8, /no percentage/],
  ];
  for (const [src, pos, re] of cases) {
    assert.throws(
      () => compileExpression(src, VARS, SUMMARY),
      (err: unknown) => {
        assert.ok(err instanceof ExpressionError, `${src}: ${String(err)}`);
        assert.match(err.message, re, src);
        assert.equal(err.pos, pos, `${src}: ${err.message}`);
        return true;
      },
    );
  }
});
