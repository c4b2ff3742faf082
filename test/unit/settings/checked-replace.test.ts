/**
 * The settings writer's last step (src/settings/store/checked-replace.ts) on real
 * files: a save by rename that lands between the writer's last check and its
 * replace is given back, never overwritten; a new file never replaces one
 * that appeared meanwhile. Runs against the addon the build made
 * (dist/bin/rename-exchange.node), which the CI machine's compiler builds.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replaceIfUnchanged, replaceIsChecked } from '../../../src/settings/store/checked-replace.js';
import { contentIdentityOf } from '../../../src/settings/store/file-identity.js';

let dir: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'checked-replace-'));
});
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

function contentOf(file: string): string {
  return contentIdentityOf(statSync(file, { bigint: true }));
}

void test('the build made the addon, so replaces are checked', () => {
  assert.equal(replaceIsChecked(), true);
});

void test('the file read is still there: the new copy replaces it and the old one is gone', () => {
  const target = join(dir, 'same.ini');
  writeFileSync(target, '[a]\nx = 1\n');
  const read = contentOf(target);
  writeFileSync(join(dir, 'same.tmp'), '[a]\nx = 2\n');
  assert.equal(replaceIfUnchanged(join(dir, 'same.tmp'), target, read), 'replaced');
  assert.equal(readFileSync(target, 'utf8'), '[a]\nx = 2\n');
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.startsWith('same')),
    ['same.ini'],
  );
});

void test('a save by rename after the read is given back, and the new copy is dropped', () => {
  const target = join(dir, 'saved.ini');
  writeFileSync(target, '[a]\nx = 1\n');
  const read = contentOf(target);
  // An editor saves by rename after the writer looked.
  writeFileSync(join(dir, 'editor.swp'), '[a]\nx = 1\nhand = kept\n');
  renameSync(join(dir, 'editor.swp'), target);
  writeFileSync(join(dir, 'saved.tmp'), '[a]\nx = 2\n');
  assert.equal(replaceIfUnchanged(join(dir, 'saved.tmp'), target, read), 'conflict');
  assert.equal(readFileSync(target, 'utf8'), '[a]\nx = 1\nhand = kept\n');
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.startsWith('saved')),
    ['saved.ini'],
  );
});

void test('a write in place after the read is a conflict too: the file keeps that write', () => {
  const target = join(dir, 'inplace.ini');
  writeFileSync(target, '[a]\nx = 1\n');
  const read = contentOf(target);
  writeFileSync(target, '[a]\nx = 1\nappended = yes\n', { flag: 'a' });
  writeFileSync(join(dir, 'inplace.tmp'), '[a]\nx = 2\n');
  assert.equal(replaceIfUnchanged(join(dir, 'inplace.tmp'), target, read), 'conflict');
  assert.match(readFileSync(target, 'utf8'), /appended = yes/);
  assert.equal(readdirSync(dir).includes('inplace.tmp'), false);
});

void test('a new file never replaces one that appeared after the writer looked', () => {
  const target = join(dir, 'new.ini');
  writeFileSync(join(dir, 'new.tmp'), '[a]\nx = 2\n');
  writeFileSync(target, '[b]\ny = 1\n');
  assert.equal(replaceIfUnchanged(join(dir, 'new.tmp'), target, null), 'conflict');
  assert.equal(readFileSync(target, 'utf8'), '[b]\ny = 1\n');
  assert.equal(readdirSync(dir).includes('new.tmp'), false);
  rmSync(target);
  writeFileSync(join(dir, 'new.tmp'), '[a]\nx = 2\n');
  assert.equal(replaceIfUnchanged(join(dir, 'new.tmp'), target, null), 'replaced');
  assert.equal(readFileSync(target, 'utf8'), '[a]\nx = 2\n');
});

void test('a failed replace says why in node’s own words', () => {
  const target = join(dir, 'gone.ini');
  writeFileSync(target, '[a]\n');
  assert.throws(() => replaceIfUnchanged(join(dir, 'absent.tmp'), target, contentOf(target)), /ENOENT/);
  assert.equal(readFileSync(target, 'utf8'), '[a]\n');
});
