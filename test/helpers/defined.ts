/**
 * `value`, failing the test with an AssertionError when it is undefined: a
 * lookup the test expects to find something (the first payload of an
 * answer, a section of parsed settings). Arrays, strings and buffers use
 * src/in-range.ts's inRange instead.
 */
import assert from 'node:assert/strict';

export function defined<T>(value: T | undefined, what = 'a value the test expects'): T {
  assert.ok(value !== undefined, `${what} is missing`);
  return value;
}
