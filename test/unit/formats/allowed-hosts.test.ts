import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isAllowed, parseAllowedHosts } from '../../../src/formats/allowed-hosts.js';
import { inRange } from '../../../src/in-range.js';

/** [list, peer address, expected] */
const cases: Array<[string, string, boolean]> = [
  ['127.0.0.1', '127.0.0.1', true],
  ['127.0.0.1', '127.0.0.2', false],
  ['127.0.0.1', '::ffff:127.0.0.1', true],
  ['127.0.0.1', '::1', false],
  ['::1', '::1', true],
  ['::1', '0:0:0:0:0:0:0:1', true],
  ['::1', '127.0.0.1', false],
  ['localhost', '127.0.0.1', true],
  ['localhost', '::1', true],
  ['localhost', '::ffff:127.0.0.1', true],
  ['localhost', '10.0.0.1', false],
  ['10.0.0.0/8', '10.200.3.4', true],
  ['10.0.0.0/8', '11.0.0.1', false],
  ['192.168.1.0/25', '192.168.1.127', true],
  ['192.168.1.0/25', '192.168.1.128', false],
  ['192.168.1.5/32', '192.168.1.5', true],
  ['10.0.*.*', '10.0.99.1', true],
  ['10.0.*.*', '10.1.0.1', false],
  ['10.*.0.1', '10.77.0.1', true],
  ['10.*.0.1', '10.77.0.2', false],
  ['10.0.*.*', '::ffff:10.0.5.5', true],
  ['fd00::/8', 'fd12:3456::1', true],
  ['fd00::/8', 'fe80::1', false],
  ['fe80::/10', 'fe80::1%eth0', true],
  ['::ffff:10.0.0.0/104', '10.1.2.3', true],
  ['0.0.0.0/0', '8.8.8.8', true],
  ['0.0.0.0/0', '::ffff:8.8.8.8', true],
  ['0.0.0.0/0', '2001:db8::1', false],
  ['::/0', '2001:db8::1', true],
  ['0.0.0.0/0,::/0', '2001:db8::1', true],
  ['', '127.0.0.1', false],
  [' , ', '127.0.0.1', false],
  ['10.0.0.1, 127.0.0.1 ', '127.0.0.1', true],
  ['bogus, 127.0.0.1', '127.0.0.1', true],
  ['127.0.0.1', 'not-an-address', false],
];

for (const [list, peer, expected] of cases) {
  void test(`allowed hosts "${list}" ${expected ? 'allows' : 'refuses'} ${peer}`, () => {
    const { matchers } = parseAllowedHosts(list);
    assert.equal(isAllowed(matchers, peer), expected);
  });
}

void test('an undefined peer address is refused', () => {
  assert.equal(isAllowed(parseAllowedHosts('0.0.0.0/0,::/0').matchers, undefined), false);
});

void test('a host name is a name matcher: no problem, and it matches nothing until a server resolves it', () => {
  const parsed = parseAllowedHosts('127.0.0.1, poller.example.com');
  assert.deepEqual(parsed.problems, []);
  assert.deepEqual(
    parsed.matchers.map((m) => [m.kind, m.text]),
    [
      ['net', '127.0.0.1'],
      ['name', 'poller.example.com'],
    ],
  );
  assert.equal(isAllowed(parsed.matchers.slice(1), '93.184.216.34'), false);
});

const bad: string[] = [
  'exa_mple.com',
  '-bad-.example',
  '10.0.*',
  '10.0.1*.1',
  '300.1.1.1',
  '10.0.0.0/33',
  '::/129',
  '10.0.0.0/x',
  '*',
];
for (const entry of bad) {
  void test(`allowed hosts entry "${entry}" is reported as a problem`, () => {
    const parsed = parseAllowedHosts(`127.0.0.1,${entry}`);
    assert.equal(parsed.matchers.length, 1);
    assert.equal(parsed.problems.length, 1);
    assert.match(inRange(parsed.problems, 0), new RegExp(`"${entry.replace(/[.*/]/g, '\\$&')}"`));
  });
}
