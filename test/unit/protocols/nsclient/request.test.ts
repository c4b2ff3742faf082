/**
 * The check_nt request as check_nt writes it (`PASSWORD&CODE&ARGS`, no
 * terminator), NSClient++'s allow groups, and the password comparison.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAllow, parseRequest, passwordMatches } from '../../../../src/protocols/nsclient/request.js';

void test('a request splits into password, command and the &-separated arguments', () => {
  assert.deepEqual(parseRequest('None&1'), { password: 'None', command: 'clientversion', code: '1', args: [] });
  assert.deepEqual(parseRequest('pw&2&5&15'), { password: 'pw', command: 'cpuload', code: '2', args: ['5', '15'] });
  assert.deepEqual(parseRequest('pw&6&ShowAll&sshd&cron'), {
    password: 'pw',
    command: 'procstate',
    code: '6',
    args: ['ShowAll', 'sshd', 'cron'],
  });
  // What follows a line break is not part of the request (NSClient++ cuts there too).
  assert.deepEqual(parseRequest('pw&3\r\ngarbage&7'), { password: 'pw', command: 'uptime', code: '3', args: [] });
});

void test('no & or no code is no request; a code of no command has none', () => {
  assert.equal(parseRequest('GET / HTTP/1.0'), undefined);
  assert.equal(parseRequest('pw&'), undefined);
  assert.equal(parseRequest(''), undefined);
  assert.equal(parseRequest('pw&11')?.command, undefined);
  assert.equal(parseRequest('pw&x')?.command, undefined);
  assert.equal(parseRequest('pw&0001')?.command, undefined);
});

void test('allow: any, groups and names as NSClient++ reads them; unknown words enable nothing', () => {
  assert.equal(parseAllow('any').allowed.size, 10);
  assert.equal(parseAllow('ALL').allowed.size, 10);
  assert.deepEqual([...parseAllow(' Metrics , info ').allowed].sort(), [
    'clientversion',
    'cpuload',
    'memuse',
    'uptime',
    'useddiskspace',
  ]);
  assert.deepEqual([...parseAllow('counters,files').allowed].sort(), ['counter', 'fileage', 'instances']);
  assert.deepEqual(parseAllow('uptime, bogus, , procstate'), {
    allowed: new Set(['uptime', 'procstate']),
    unknown: ['bogus'],
  });
  assert.equal(parseAllow('').allowed.size, 0);
});

void test('the password must be the configured one; none configured matches nothing', () => {
  assert.equal(passwordMatches('s3cret', 's3cret'), true);
  assert.equal(passwordMatches('s3cre', 's3cret'), false);
  assert.equal(passwordMatches('', ''), false);
  assert.equal(passwordMatches('None', ''), false);
});
