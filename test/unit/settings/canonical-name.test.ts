/**
 * The canonical form of settings paths and keys from a request (issue 37,
 * item 1): blanks of any Unicode kind, control and format characters and a
 * case the schema does not use are refused, naming the character; names
 * the schema leaves free keep their case.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentError } from '../../../src/errors.js';
import {
  badCharacter,
  describeCodePoint,
  requireCanonicalKey,
  requireCanonicalPath,
} from '../../../src/settings/model/canonical-name.js';

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AgentError);
    assert.equal(err.code, 'AGENT_ERR_SETTINGS_NOT_CANONICAL');
    assert.equal(err.status, 422);
    return err.message;
  }
  assert.fail('not refused');
}

void test('canonical paths and keys pass unchanged', () => {
  for (const p of [
    '/settings/WEB/server',
    '/settings/web/roles',
    '/settings/web/users/Sam',
    '/settings/external scripts/wrapped scripts',
    '/settings',
    '/settings/web',
    '/settings/something/unknown',
  ])
    assert.equal(requireCanonicalPath(p), p);
  assert.equal(requireCanonicalKey('/settings/WEB/server', 'allowed hosts'), 'allowed hosts');
  assert.equal(requireCanonicalKey('/settings/web/roles', 'Setter'), 'Setter');
});

void test('blanks, controls and format characters are refused by name and place', () => {
  const cases: [string, string][] = [
    ['/settings/web/roles ', 'U+0020 SPACE at 20'],
    ['/settings/WEB/server\t', 'U+0009 CHARACTER TABULATION at 21'],
    ['/settings/web/roles\u00a0', 'U+00A0 NO-BREAK SPACE'],
    ['\ufeff/settings/web/roles', 'a settings path starts with /'],
    ['/\ufeffsettings/web/roles', 'U+FEFF BYTE ORDER MARK at 2'],
    ['/settings/web/roles\u3000', 'U+3000 IDEOGRAPHIC SPACE'],
    ['/settings/web/ro\u200bles', 'U+200B ZERO WIDTH SPACE'],
    ['/settings//web/roles', 'an empty segment'],
    ['/settings/web/roles/', 'an empty segment'],
    ['/settings/ web/roles', 'U+0020 SPACE at 11'],
  ];
  for (const [path, expected] of cases) assert.ok(refusal(() => requireCanonicalPath(path)).includes(expected), path);
  assert.match(
    refusal(() => requireCanonicalKey('/settings/web/roles', 'setter ')),
    /U\+0020 SPACE/,
  );
  assert.match(
    refusal(() => requireCanonicalKey('/settings/web/roles', 'set\u0000ter')),
    /U\+0000/,
  );
  assert.match(
    refusal(() => requireCanonicalKey('/settings/web/roles', '')),
    /an empty key/,
  );
});

void test('a case the schema does not use is refused with its spelling', () => {
  assert.match(
    refusal(() => requireCanonicalPath('/settings/web/server')),
    /the schema spells it \/settings\/WEB\/server/,
  );
  assert.match(
    refusal(() => requireCanonicalPath('/settings/WEB/Roles')),
    /spells it \/settings\/web\/roles/,
  );
  assert.match(
    refusal(() => requireCanonicalPath('/Settings/web/users/sam')),
    /spells \/Settings as \/settings/,
  );
  assert.match(
    refusal(() => requireCanonicalPath('/settings/Web')),
    /as \/settings\/(WEB|web) or/,
  );
  assert.match(
    refusal(() => requireCanonicalKey('/settings/WEB/server', 'Allowed Hosts')),
    /the schema spells it "allowed hosts"/,
  );
});

void test('code points are described', () => {
  assert.equal(describeCodePoint(0xfeff), 'U+FEFF BYTE ORDER MARK');
  assert.equal(describeCodePoint(0x1f600), 'U+1F600');
  assert.equal(badCharacter('plain name'), undefined);
  assert.deepEqual(badCharacter('a\u2028b'), { index: 1, codePoint: 0x2028, why: 'a control or invisible character' });
});
