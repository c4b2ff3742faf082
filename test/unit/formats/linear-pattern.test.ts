/** The linear-time engine for patterns from requests and settings, and the glob subset it runs. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linearGlob, linearPattern, MAX_PATTERN_LENGTH, PatternError } from '../../../src/formats/linear-pattern.js';

void test('RE2 syntax: classes, alternation, (?i); no backreferences or lookaround', () => {
  assert.ok(linearPattern('^Debian .*\\d+').test('Debian GNU/Linux 12'));
  assert.ok(linearPattern('(?i)linux').test('GNU/Linux'));
  assert.ok(linearPattern('linux', { ignoreCase: true }).test('LINUX'));
  assert.throws(() => linearPattern('(a)\\1'), PatternError);
  assert.throws(() => linearPattern('(?=a)'), /lookaround/);
  assert.throws(() => linearPattern('a'.repeat(MAX_PATTERN_LENGTH + 1)), /at most 512/);
});

void test('a backtracking bomb on a long text does not match, without backtracking', () => {
  const text = 'a'.repeat(100_000);
  assert.equal(linearPattern('(.*)*Z').test(text), false);
  assert.equal(linearPattern('^(a+)+$').test(`${'a'.repeat(5000)}!`), false);
});

void test('globs: * ? classes braces extglobs, ** across folders, hidden files by option', () => {
  const cases: [string, string, boolean, boolean?][] = [
    ['*.log', 'syslog.log', true],
    ['*.log', 'a/b.log', false],
    ['*.log', '.hidden.log', false],
    ['*.log', '.hidden.log', true, true],
    ['check_?pu', 'check_cpu', true],
    ['check_[a-c]*', 'check_cpu', true],
    ['check_[!a-c]*', 'check_cpu', false],
    ['check_{cpu,mem{ory,}}', 'check_mem', true],
    ['check_{cpu,mem{ory,}}', 'check_memory', true],
    ['check_{cpu,mem{ory,}}', 'check_disk', false],
    ['check_@(cpu|mem)', 'check_mem', true],
    ['+(ab)', 'ababab', true],
    ['/var/log/**/*.log', '/var/log/a/b/c.log', true],
    ['/var/log/**/*.log', '/var/log/c.log', true],
    ['/var/log/**/*.log', '/var/lib/c.log', false],
    ['a\\*b', 'a*b', true],
    ['a\\*b', 'axb', false],
    ['a.b', 'axb', false],
  ];
  for (const [glob, name, want, dot] of cases)
    assert.equal(linearGlob(glob, { dot }).test(name), want, `${glob} ${name}`);
  assert.ok(linearGlob('CHECK_*', { ignoreCase: true }).test('check_cpu'));
  assert.throws(() => linearGlob('!(remote_*)'), /negated pattern/);
  assert.throws(() => linearGlob('{a,b'), /unclosed/);
});
