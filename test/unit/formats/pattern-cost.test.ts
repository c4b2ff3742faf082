/** The cost bound of patterns: repetition counts, program size, and the cost of a match checked before it runs. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linearGlob, linearPattern, PatternCostError, PatternError } from '../../../src/formats/linear-pattern.js';
import {
  largestRepeat,
  MAX_MATCH_COST,
  MAX_PROGRAM_SIZE,
  MAX_REPEAT,
  PER_CHARACTER,
  refuseMatch,
  withPatternScope,
} from '../../../src/formats/pattern-cost.js';

void test('largestRepeat reads {n}, {n,} and {n,m}, not braces in classes, escapes or \\Q…\\E', () => {
  assert.equal(largestRepeat('a{3}b{2,}c{4,7}'), 7);
  assert.equal(largestRepeat('.{1000}'.repeat(73)), 1000);
  assert.equal(largestRepeat('[{1000}]\\{1000\\}\\Q{1000}\\E\\x{1000}\\p{Greek}'), 0);
  assert.equal(largestRepeat('[]{]{5}[^]{]{6}[[:alpha:]{]{8}'), 8);
  assert.equal(largestRepeat('{abc}a{,5}'), 0);
});

void test('repetitions above the limit and programs above the limit are refused at compile time', () => {
  assert.throws(() => linearPattern(`a{${MAX_REPEAT + 1}}`), /repeats 101 times; a repetition count above 100/);
  assert.throws(() => linearPattern('.{1000}'.repeat(73)), PatternError);
  assert.ok(linearPattern(`a{${MAX_REPEAT}}`).test('a'.repeat(MAX_REPEAT)));
  assert.throws(
    () => linearPattern('.{100}'.repeat(25)),
    new RegExp(`compiles to \\d+ instructions; at most ${MAX_PROGRAM_SIZE}`),
  );
});

void test('a match whose cost is over the budget is refused before it runs, in words', async () => {
  const wide = linearPattern(`(?i)${'.{100}'.repeat(19)}Z`);
  assert.throws(() => wide.test('x'.repeat(1024 * 1024)), PatternCostError);
  assert.throws(() => wide.test('x'.repeat(1024 * 1024)), /would cost \d+ units, more than the 30000000 one match/);
  // A small pattern over the same text runs (and a glob over a name).
  assert.equal(linearPattern('x{3}$').test('x'.repeat(1024 * 1024)), true);
  assert.equal(linearGlob('*.log').test('a.log'), true);
  await new Promise((r) => setImmediate(r)); // a turn of its own: the matches above were charged to this one
  const limit = Math.floor(MAX_MATCH_COST / (10 + PER_CHARACTER)) - 1;
  assert.equal(refuseMatch(10, limit), undefined);
  assert.match(refuseMatch(10, limit + 1) ?? '', /would cost/);
});

void test('the matches of one turn of the event loop share one budget; the next turn starts afresh', async () => {
  const wide = linearPattern(`${'.{100}'.repeat(19)}Z`);
  const text = 'x'.repeat(4000);
  await new Promise((r) => setImmediate(r));
  assert.throws(() => {
    for (let i = 0; i < 100; i++) wide.test(text);
  }, /patterns matched since the agent last served its sockets/);
  await new Promise((r) => setImmediate(r));
  assert.equal(wide.test(text), false);
});

void test('a request stops matching once its patterns have taken their time', async () => {
  const wide = linearPattern(`(?i)${'.{100}'.repeat(19)}Z`);
  const text = 'x'.repeat(10_000);
  const answer = await withPatternScope(async () => {
    for (let i = 0; i < 10_000; i++) {
      await new Promise((r) => setImmediate(r));
      try {
        wide.test(text);
      } catch (err) {
        return (err as Error).message;
      }
    }
    return 'never refused';
  });
  assert.match(answer, /the patterns of this request have taken more than 1000 ms/);
});
