/**
 * Issue 42: AGENT_WARN_PASSWORD_IN_GIT is asked of git by `config-agent settings validate`
 * (settings/store/password-in-git.ts passwordsInGit), never by a load: a load, the agent's reload
 * included, runs no subprocess. The whole command, with `git add` and the web commands, is
 * test/integration/web-password-file.test.ts.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettingsFile } from '../../../src/settings/store/load-file.js';
import { passwordsInGit } from '../../../src/settings/store/password-in-git.js';

const dir = mkdtempSync(join(tmpdir(), 'password-in-git-'));
const TEXT =
  '[/settings/WEB/server]\npassword = plain-secret-42\n\n[/settings/web/users/ann]\npassword = ann-42\nrole = client\n';

void describe('settings/store/password-in-git.ts: asked by validate, not by a load', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync('git', ['init', '-q', dir]);
  const file = join(dir, 'agent.ini');
  writeFileSync(file, TEXT);
  execFileSync('git', ['-C', dir, 'add', 'agent.ini']);

  void it('a load of a tracked file with plain-text passwords does not warn', async () => {
    const r = await loadSettingsFile(file);
    assert.ok(r.ok, JSON.stringify(r.problems));
    assert.deepEqual(
      r.warnings.filter((w) => w.code === 'AGENT_WARN_PASSWORD_IN_GIT'),
      [],
    );
  });

  void it('passwordsInGit of its snapshot warns at each password line, without the value', async () => {
    const r = await loadSettingsFile(file);
    assert.ok(r.ok);
    const found = passwordsInGit(r.snapshot);
    assert.deepEqual(
      found.map((w) => [w.code, w.line, w.key]),
      [
        ['AGENT_WARN_PASSWORD_IN_GIT', 2, 'password'],
        ['AGENT_WARN_PASSWORD_IN_GIT', 5, 'password'],
      ],
    );
    for (const w of found) assert.doesNotMatch(w.message, /plain-secret-42|ann-42/);
  });

  void it('a file git does not track: nothing', async () => {
    const other = join(dir, 'other.ini');
    writeFileSync(other, TEXT);
    const r = await loadSettingsFile(other);
    assert.ok(r.ok);
    assert.deepEqual(passwordsInGit(r.snapshot), []);
  });
});
