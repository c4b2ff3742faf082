/** The plain wildcard shared by include patterns and the allow-lists' fast path. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wildcardPattern } from '../../../src/formats/wildcard.js';
import { parseAllowList } from '../../../src/formats/command-allow-list.js';

void test('* is any run, ? one character, everything else itself; case by option', () => {
  const re = wildcardPattern('host-?.(a)[b]+*.ini');
  assert.ok(re.test('host-1.(a)[b]+.ini'));
  assert.ok(re.test('host-1.(a)[b]+more.ini'));
  assert.ok(!re.test('host-12.(a)[b]+.ini'));
  assert.ok(!re.test('host-1x(a)[b]+.ini'), '. is a dot');
  assert.ok(!re.test('HOST-1.(a)[b]+.ini'), 'case-sensitive by default');
  assert.ok(wildcardPattern('check_*', { ignoreCase: true }).test('CHECK_CPU'));
  assert.ok(wildcardPattern('a*b*c').test('abxbc'));
  assert.ok(!wildcardPattern('a*b*c').test('abxb'));
  assert.ok(wildcardPattern('*').test(''));
  assert.ok(!wildcardPattern('?').test(''));
});

void test('many stars against a long name that does not match: linear, answers at once', () => {
  const name = 'a'.repeat(100_000);
  assert.ok(!wildcardPattern('*a*a*a*a*a*a*a*a*a*a*b').test(name));
});

void test('the allow-list fast path and the glob translation agree on plain names', () => {
  for (const [pattern, name, allowed] of [
    ['check_*', 'check_cpu', true],
    ['check_?pu', 'check_cpu', true],
    ['check_?pu', 'check_cppu', false],
    ['check-x.*', 'CHECK-X.sh', true],
    ['check_{cpu,mem}', 'check_mem', true],
  ] as const) {
    assert.equal(parseAllowList(pattern).allows(name), allowed, `${pattern} ${name}`);
  }
});
