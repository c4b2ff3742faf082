/**
 * The Windows-only values of a query command: check_drivesize's drive
 * letters under its own and its legacy name, is_hung in any expression;
 * mount points, other queries' `drive=` and unparsable text give none.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { windowsOnlyValues } from '../../../src/formats/windows-values.js';

void test('drive letters of check_drivesize and CheckDriveSize, and is_hung, each once as written', () => {
  assert.deepEqual(windowsOnlyValues('CheckDriveSize MinWarnFree=10% Drive=c:'), ['Drive=c:']);
  assert.deepEqual(windowsOnlyValues('check_drivesize drive=d:\\ drive=E:/ "crit=used > 95%"'), [
    'drive=d:\\',
    'drive=E:/',
  ]);
  assert.deepEqual(windowsOnlyValues(`check_process process=explorer.exe "crit=is_hung or state != 'started'"`), [
    'is_hung',
  ]);
  assert.deepEqual(windowsOnlyValues('check_process "warn=is_hung" "crit=is_hung"'), ['is_hung']);
});

void test('mount points, other queries and text that does not parse give nothing', () => {
  assert.deepEqual(windowsOnlyValues('check_drivesize drive=/ drive=/var drive=*'), []);
  assert.deepEqual(windowsOnlyValues('check_files drive=c:'), []);
  assert.deepEqual(windowsOnlyValues('check_process "crit=is_hunger > 1"'), []);
  assert.deepEqual(windowsOnlyValues('check_drivesize "drive=c:'), []);
});
