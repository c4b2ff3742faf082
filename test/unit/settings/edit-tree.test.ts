/**
 * Edits of a settings tree: each edit lands in the file that holds its key
 * (the shared base, or the host file that overrides it), a new key in the
 * main file, a removed section in every file that writes it; edits
 * computed from the merged view see included values.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { changedFiles, editSettings } from '../../../src/settings/store/edit-tree.js';

void describe('editSettings over includes', () => {
  let dir = '';
  let base = '';
  let host = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'edit-tree-'));
    mkdirSync(join(dir, 'shared'));
    base = join(dir, 'shared', 'base.ini');
    host = join(dir, 'host.ini');
    writeFileSync(
      base,
      '[/settings/default]\ntimeout = 10\nallowed hosts = 10.0.0.1\n\n[/settings/web/roles]\nops = info.get\n\n[/settings/web/users/bob]\nrole = ops\n',
    );
    writeFileSync(
      host,
      '[/includes]\nbase = shared/base.ini\n\n[/settings/default]\ntimeout = 20\n\n[/settings/web/users/bob]\npassword = x\n',
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  void it('writes each key to the file whose value is in force, a new key to the main file, and says which', async () => {
    const r = await editSettings(host, [
      { op: 'set', section: '/settings/default', key: 'timeout', value: '30' },
      { op: 'set', section: '/settings/default', key: 'allowed hosts', value: '10.0.0.2' },
      { op: 'set', section: '/settings/log', key: 'level', value: 'debug' },
    ]);
    assert.deepEqual(changedFiles(r).sort(), [base, host].sort());
    assert.match(readFileSync(host, 'utf8'), /timeout = 30/);
    assert.match(readFileSync(host, 'utf8'), /\[\/settings\/log\]\nlevel = debug\n$/);
    assert.match(readFileSync(base, 'utf8'), /timeout = 10\nallowed hosts = 10\.0\.0\.2\n/);
  });

  void it('computes edits from the merged view and removes a section from every file that writes it', async () => {
    const r = await editSettings(host, (view) => [
      {
        op: 'set',
        section: '/settings/web/roles',
        key: 'ops',
        value: `${view.get('/settings/web/roles', 'OPS')}, logs.list`,
      },
    ]);
    assert.deepEqual(changedFiles(r), [base]);
    assert.match(readFileSync(base, 'utf8'), /ops = info\.get, logs\.list/);
    await editSettings(host, [{ op: 'remove-section', section: '/settings/web/users/bob' }]);
    assert.doesNotMatch(readFileSync(base, 'utf8') + readFileSync(host, 'utf8'), /users\/bob/);
  });

  void it('refuses a main file that does not exist', async () => {
    await assert.rejects(
      editSettings(join(dir, 'missing.ini'), [{ op: 'set', section: '/a', key: 'k', value: 'v' }]),
      /does not exist/,
    );
  });
});
