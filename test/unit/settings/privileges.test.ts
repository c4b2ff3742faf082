/** Privilege matching, table-driven: exact, trailing *, bare *, and what must not match. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hasPrivilege, parsePrivilegeList, ruleMatches } from '../../../src/settings/model/privileges.js';

const table: [rule: string, required: string, expected: boolean][] = [
  ['*', 'modules.load', true],
  ['*', 'anything.at.all', true],
  ['modules.*', 'modules.load', true],
  ['modules.*', 'modules.list', true],
  ['modules.*', 'modules', false],
  ['modules.*', 'queries.list', false],
  ['modules.load', 'modules.load', true],
  ['modules.load', 'modules.unload', false],
  ['modules.load', 'modules.load.extra', false],
  ['modules', 'modules.load', false],
  ['mod*', 'modules.load', true],
  ['info.get', 'info.get', true],
  ['info.*', 'info.get', true],
  [' info.get ', 'info.get', true],
  ['', 'info.get', false],
  ['queries.execute', 'queries.execut', false],
];

for (const [rule, required, expected] of table) {
  void test(`rule "${rule}" ${expected ? 'grants' : 'does not grant'} ${required}`, () => {
    assert.equal(ruleMatches(rule, required), expected);
  });
}

void test('a role grants when any of its rules matches', () => {
  const role = parsePrivilegeList('info.get, queries.*,  ,logs.list');
  assert.deepEqual(role, ['info.get', 'queries.*', 'logs.list']);
  assert.equal(hasPrivilege(role, 'queries.execute'), true);
  assert.equal(hasPrivilege(role, 'logs.list'), true);
  assert.equal(hasPrivilege(role, 'modules.load'), false);
  assert.equal(hasPrivilege([], 'info.get'), false);
});
