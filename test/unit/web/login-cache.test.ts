/**
 * The access layer's cache of successful logins: a success stays cached
 * while what its own login depends on is unchanged. Adding a user or
 * changing another user's password keeps root's and ann's successes (no
 * second pbkdf2 run: the credential's verify is not called again); a change
 * of root's password, of ann's hash, role or her role's privileges makes
 * that login be checked again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getLogger, sink } from '../../../src/log.js';
import { loadSettingsText } from '../../../src/settings/model/load.js';
import { moduleView } from '../../../src/settings/model/module-view.js';
import { MODULE_SECTIONS } from '../../../src/settings/model/module-table.js';
import { AccessControl, type Credential } from '../../../src/web/access.js';
import { WebMetrics } from '../../../src/web/metrics.js';

sink.consoleLevel = 'silent';

function view(
  extra: string,
  rootPw = 'root-pw',
  annRole = 'reader',
  readerGrants = 'info.get',
  writerGrants = 'info.get, logs.list',
) {
  const text = `[/settings/WEB/server]\npassword = ${rootPw}\n\n[/settings/web/roles]\nreader = ${readerGrants}\nwriter = ${writerGrants}\n\n[/settings/web/users/ann]\npassword = ann-pw\nrole = ${annRole}\n${extra}`;
  const loaded = loadSettingsText(text, '/tmp/login-cache.ini');
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  return moduleView(MODULE_SECTIONS.WEBServer, loaded.snapshot);
}

function counted(login: string): Credential & { calls: number } {
  const c = {
    cacheKey: `test\n${login}`,
    login,
    who: login,
    calls: 0,
    verify: async () => {
      c.calls += 1;
      return { user: login, privileges: ['*'] };
    },
  };
  return c;
}

void test('another user added or changed keeps the cached logins; a change of the login itself checks it again', async () => {
  let current = view('');
  const access = new AccessControl({
    getSnapshot: () => current,
    metrics: new WebMetrics(),
    log: getLogger('test:login-cache'),
  });
  const root = counted('root');
  const ann = counted('ann');
  const ok = async (c: Credential) => assert.equal((await access.verifyGuess('127.0.0.1', c)).kind, 'ok');

  await ok(root);
  await ok(ann);
  await ok(root);
  assert.deepEqual([root.calls, ann.calls], [1, 1], 'cached');

  current = view('\n[/settings/web/users/bob]\npassword = bob-pw\nrole = reader\n');
  await ok(root);
  await ok(ann);
  assert.deepEqual([root.calls, ann.calls], [1, 1], 'a new user changes neither');

  current = view('\n[/settings/web/users/bob]\npassword = other-pw\nrole = writer\n');
  await ok(root);
  await ok(ann);
  assert.deepEqual([root.calls, ann.calls], [1, 1], "bob's password and role change neither");

  current = view('\n[/settings/web/users/bob]\npassword = other-pw\nrole = writer\n', 'new-root-pw');
  await ok(root);
  await ok(ann);
  assert.deepEqual([root.calls, ann.calls], [2, 1], "root's password: root is checked again");

  current = view('\n[/settings/web/users/bob]\npassword = other-pw\nrole = writer\n', 'new-root-pw', 'writer');
  await ok(ann);
  assert.equal(ann.calls, 2, "ann's role");

  const bob = '\n[/settings/web/users/bob]\npassword = other-pw\nrole = writer\n';
  current = view(bob, 'new-root-pw', 'writer', 'info.get, logs.list');
  await ok(ann);
  assert.equal(ann.calls, 2, 'the privileges of a role ann does not hold');
  current = view(bob, 'new-root-pw', 'writer', 'info.get, logs.list', 'info.get');
  await ok(ann);
  assert.equal(ann.calls, 3, "the privileges of ann's role");
});
