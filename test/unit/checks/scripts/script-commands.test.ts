import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import {
  mkdtempSync,
  rmSync,
  writeFileSync,
  readFileSync,
  statSync,
  existsSync,
  mkdirSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptCommand, SCRIPTS_SECTION, type ScriptStore } from '../../../../src/checks/scripts/script-commands.js';
import { scriptNameProblem } from '../../../../src/checks/scripts/script-root.js';
import { splitCommandLine } from '../../../../src/formats/script-command-line.js';
import { editSettingsFile } from '../../../../src/settings/store/edit-ini.js';

let dir = '';
let root = '';
let ini = '';
let store: ScriptStore;
let scripts: Map<string, string>;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'scripts-cmd-'));
  root = join(dir, 'scripts');
  mkdirSync(join(root, 'sub'), { recursive: true });
  mkdirSync(join(root, 'lib'), { recursive: true });
  writeFileSync(join(root, 'check_a.sh'), '#!/bin/sh\necho a\n');
  writeFileSync(join(root, 'sub', 'check_b.sh'), '#!/bin/sh\necho b\n');
  writeFileSync(join(root, 'lib', 'helper.sh'), '# helper\n');
  writeFileSync(join(dir, 'secret.txt'), 'secret\n');
  ini = join(dir, 'agent.ini');
  writeFileSync(
    ini,
    `; my settings\n[/modules]\nCheckExternalScripts = enabled\n\n[${SCRIPTS_SECTION}]\n; keep this comment\ncheck_a = check_a.sh --flag\n`,
  );
  scripts = new Map([['check_a', 'check_a.sh --flag']]);
  store = {
    root: () => root,
    scripts: () => scripts,
    async setEntry(name, line) {
      await editSettingsFile(ini, [{ op: 'set', section: SCRIPTS_SECTION, key: name, value: line }]);
      scripts.set(name, line);
    },
    async removeEntry(name) {
      await editSettingsFile(ini, [{ op: 'remove-key', section: SCRIPTS_SECTION, key: name }]);
      scripts.delete(name);
    },
  };
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

void test('list: configured names, or every file under the root without lib folders', async () => {
  assert.deepEqual(await scriptCommand(['list', '--json'], store), { result: 0, message: '["check_a"]' });
  assert.deepEqual(await scriptCommand(['list', '--json', '--all'], store), {
    result: 0,
    message: '["check_a.sh","sub/check_b.sh"]',
  });
});

void test('show: a command line, a file, not found, refused names', async () => {
  assert.deepEqual(await scriptCommand(['show', '--script', 'CHECK_A'], store), {
    result: 0,
    message: 'check_a.sh --flag',
  });
  assert.deepEqual(await scriptCommand(['show', '--script', 'sub/check_b.sh'], store), {
    result: 0,
    message: '#!/bin/sh\necho b\n',
  });
  assert.deepEqual(await scriptCommand(['show', '--script', 'sub\\check_b.sh'], store), {
    result: 0,
    message: '#!/bin/sh\necho b\n',
  });
  assert.deepEqual(await scriptCommand(['show', '--script', 'nope.sh'], store), {
    result: 1,
    message: 'Script not found: nope.sh',
  });
  for (const bad of [
    '../secret.txt',
    '/etc/passwd',
    'C:/x',
    'sub/../../secret.txt',
    'a//b',
    'sub/',
    '.',
    'a b.sh',
    '',
  ]) {
    const r = await scriptCommand(['show', '--script', bad], store);
    assert.equal(r.result, 2, bad);
    assert.match(r.message, /^Invalid script name: /, bad);
  }
  symlinkSync(join(dir, 'secret.txt'), join(root, 'link.txt'));
  const r = await scriptCommand(['show', '--script', 'link.txt'], store);
  assert.deepEqual([r.result, r.message.startsWith('Not allowed outside: ')], [2, true]);
});

void test('add writes the file 0755 and the entry with a minimal edit', async () => {
  const content = '#!/bin/sh\necho "new"\n';
  const r = await scriptCommand(
    ['add', '--script', 'tools/check_new.sh', '--content-base64', Buffer.from(content).toString('base64')],
    store,
  );
  assert.deepEqual(r, { result: 0, message: 'Added check_new as tools/check_new.sh' });
  const file = join(root, 'tools', 'check_new.sh');
  assert.equal(readFileSync(file, 'utf8'), content);
  assert.equal(statSync(file).mode & 0o777, 0o755);
  assert.equal(
    readFileSync(ini, 'utf8'),
    `; my settings\n[/modules]\nCheckExternalScripts = enabled\n\n[${SCRIPTS_SECTION}]\n; keep this comment\ncheck_a = check_a.sh --flag\ncheck_new = tools/check_new.sh\n`,
  );
  assert.equal(scripts.get('check_new'), 'tools/check_new.sh');
  assert.equal((await scriptCommand(['add', '--script', '../evil.sh', '--content-base64', 'AA=='], store)).result, 2);
  assert.equal(existsSync(join(dir, 'evil.sh')), false);
  assert.deepEqual(await scriptCommand(['add', '--script', 'x.sh', '--content-base64', 'not base64!'], store), {
    result: 2,
    message: 'Invalid content: not base64',
  });
  assert.equal((await scriptCommand(['add', '--script', 'x.sh'], store)).result, 2);
});

void test('add refuses symlinks leading outside the root, dangling ones too, and never writes through a symlink', async () => {
  const outside = join(dir, 'outside');
  symlinkSync(join(outside, 'f.sh'), join(root, 'flink.sh'));
  const r = await scriptCommand(['add', '--script', 'flink.sh', '--content-base64', 'eA=='], store);
  assert.deepEqual([r.result, r.message.startsWith('Not allowed outside: ')], [2, true]);
  assert.equal(existsSync(join(outside, 'f.sh')), false);
  symlinkSync(join(outside, 'deeper'), join(root, 'dlink'));
  const d = await scriptCommand(['add', '--script', 'dlink/x.sh', '--content-base64', 'eA=='], store);
  assert.deepEqual([d.result, d.message.startsWith('Not allowed outside: ')], [2, true]);
  assert.equal(existsSync(outside), false);
  symlinkSync('../outside/g.sh', join(root, 'sub', 'rel.sh'));
  assert.equal((await scriptCommand(['add', '--script', 'sub/rel.sh', '--content-base64', 'eA=='], store)).result, 2);
  assert.equal(existsSync(join(dir, 'outside')), false);
  symlinkSync('check_a.sh', join(root, 'inner.sh'));
  assert.deepEqual(await scriptCommand(['add', '--script', 'inner.sh', '--content-base64', 'eA=='], store), {
    result: 2,
    message: 'Invalid script name: inner.sh is a symbolic link',
  });
  assert.equal(readFileSync(join(root, 'check_a.sh'), 'utf8'), '#!/bin/sh\necho a\n');
});

void test('delete: an entry, a file with the entries that run it, not found', async () => {
  await scriptCommand(
    ['add', '--script', 'check_c.sh', '--content-base64', Buffer.from('#!/bin/sh\n').toString('base64')],
    store,
  );
  let r = await scriptCommand(['delete', '--script', 'check_a'], store);
  assert.deepEqual(r, {
    result: 0,
    message: "Script definition has been removed don't forget to delete any artifact for: check_a",
  });
  assert.equal(existsSync(join(root, 'check_a.sh')), true, 'removing a definition keeps the file');
  r = await scriptCommand(['delete', '--script', 'check_c.sh'], store);
  assert.deepEqual(r, { result: 0, message: 'Script file was removed' });
  assert.equal(existsSync(join(root, 'check_c.sh')), false);
  assert.equal(scripts.has('check_c'), false);
  assert.doesNotMatch(readFileSync(ini, 'utf8'), /check_[ac] =/);
  assert.match(readFileSync(ini, 'utf8'), /; keep this comment/);
  assert.deepEqual(await scriptCommand(['delete', '--script', 'gone'], store), {
    result: 1,
    message: 'Script not found: gone',
  });
  assert.equal((await scriptCommand(['delete', '--script', '../secret.txt'], store)).result, 2);
  assert.equal(existsSync(join(dir, 'secret.txt')), true);
});

void test('unknown verbs and failures map to 2 and 3', async () => {
  assert.equal((await scriptCommand(['frobnicate'], store)).result, 2);
  assert.equal((await scriptCommand([], store)).result, 2);
  const broken: ScriptStore = { ...store, setEntry: () => Promise.reject(new Error('disk full')) };
  const r = await scriptCommand(['add', '--script', 'y.sh', '--content-base64', 'AA=='], broken);
  assert.deepEqual(r, { result: 3, message: 'Script command failed: disk full' });
});

void test('script names and command lines', () => {
  assert.equal(scriptNameProblem('a/b-c_d.1.sh'), undefined);
  assert.match(scriptNameProblem('a/../b') ?? '', /'\.\.' is not allowed/);
  assert.deepEqual(splitCommandLine(`a.sh 'one two' "x \\"y\\"" z\\ w ""`), ['a.sh', 'one two', 'x "y"', 'z w', '']);
});
