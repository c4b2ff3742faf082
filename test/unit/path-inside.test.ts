/**
 * path-inside.ts: inside by whole segments, the folder itself counts unless
 * strictly, `..` segments resolved, a name that starts with `..` is inside.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isInside, relativeInside } from '../../src/path-inside.js';

void test('inside by whole segments', () => {
  assert.equal(isInside('/srv/app', '/srv/app/x/y'), true);
  assert.equal(isInside('/srv/app', '/srv/app'), true);
  assert.equal(isInside('/srv/app', '/srv/app', true), false);
  assert.equal(isInside('/srv/app/', '/srv/app/x'), true, 'a trailing separator on the folder');
  assert.equal(isInside('/srv/app', '/srv/app2/x'), false, 'a sibling whose name starts the same');
  assert.equal(isInside('/srv/app', '/srv/app/../etc/passwd'), false, '.. segments are resolved');
  assert.equal(isInside('/srv/app', '/srv'), false);
  assert.equal(isInside('/', '/etc'), true);
});

void test('relativeInside: the path below the folder, or undefined', () => {
  assert.equal(relativeInside('/srv/app', '/srv/app/x/y'), 'x/y');
  assert.equal(relativeInside('/srv/app', '/srv/app'), '');
  assert.equal(
    relativeInside('/srv/app', '/srv/app/..notes'),
    '..notes',
    'a name that starts with .. is inside (the old copies said outside)',
  );
  assert.equal(relativeInside('/srv/app', '/srv/other'), undefined);
});
