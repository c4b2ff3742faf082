/**
 * nrpe's macros (checks/scripts/nrpe-command.ts), against what Debian's nrpe
 * 4.1.0 logged as "Running command:" for the same lines (debug=1).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nrpeMacros } from '../../../../src/checks/scripts/nrpe-command.js';

void test('$ARGn$ without arguments is empty text; $$ is $; other $text$ stays; an open $ is closed', () => {
  assert.equal(nrpeMacros('/bin/echo OK: args $ARG1$ $ARG2$ end', []), '/bin/echo OK: args   end');
  assert.equal(nrpeMacros('/bin/echo a$$b $FOO$ $HOME', []), '/bin/echo a$b $FOO$ $HOME$');
  assert.equal(nrpeMacros("/bin/sh -c 'echo killed; kill -9 $$'", []), "/bin/sh -c 'echo killed; kill -9 $'");
});

void test('arguments fill $ARG1$ to $ARG16$; $ARG17$ and $ARGS$ are empty', () => {
  assert.equal(nrpeMacros('x $ARG1$ $ARG2$', ['a', 'b']), 'x a b');
  assert.equal(nrpeMacros('x $ARG17$ $ARGS$ y', ['a']), 'x   y');
});
