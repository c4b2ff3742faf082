/**
 * `config-agent web ...` run as the real command (node dist/src/main.js) on a
 * settings file in a temp folder: minimal edits that keep comments, hashed
 * user passwords, role lists that grow, usage errors with exit 2.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSettingsFile } from '../../../src/settings/store/load-file.js';
import { verifyPassword } from '../../../src/web/password-hash.js';

const MAIN = fileURLToPath(new URL('../../../src/main.js', import.meta.url));

// 60 s per run by default: runs in parallel, each with a 600,000-round PBKDF2, on a busy 2-core machine.
function agent(args: string[], timeout = 60_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, ...args],
      { timeout, env: { ...process.env, AGENT_LOG_LEVEL: 'error' } },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 99) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const START = `# Settings kept in git
[/modules]
; the helpers
CheckHelpers = enabled

[/settings/web/roles]
viewer = info.get
`;

void describe('config-agent web', () => {
  const dir = mkdtempSync(join(tmpdir(), 'web-cli-'));
  const file = join(dir, 'agent.ini');
  after(() => rmSync(dir, { recursive: true, force: true }));

  void it('install enables WEBServer, proposes and prints a password, and keeps the rest of the file', async () => {
    writeFileSync(file, START);
    const r = await agent([
      'web',
      'install',
      '--settings',
      file,
      '--port',
      '9443',
      '--allowed-hosts',
      '127.0.0.1,10.0.*.*',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const pw = /web password for user root: (\S+)/.exec(r.stdout)?.[1];
    assert.ok(pw && pw.length >= 20, r.stdout);
    const text = readFileSync(file, 'utf8');
    assert.ok(
      text.startsWith(START.replace('CheckHelpers = enabled\n', 'CheckHelpers = enabled\nWEBServer = enabled\n')),
      text,
    );
    const loaded = await loadSettingsFile(file);
    assert.ok(loaded.ok);
    assert.equal(loaded.snapshot.modules.WEBServer, true);
    const web = loaded.snapshot.sections['/settings/WEB/server'] as Record<string, unknown>;
    assert.equal(web.port, '9443s');
    assert.equal(web.password, pw);
    assert.equal(web['allowed hosts'], '127.0.0.1, 10.0.*.*');
  });

  void it('install without --password keeps an existing password', async () => {
    const before = (await loadSettingsFile(file)) as {
      ok: true;
      snapshot: { sections: Record<string, Record<string, unknown>> };
    };
    const r = await agent(['web', 'install', '--settings', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /web password for user root:/);
    const afterLoad = (await loadSettingsFile(file)) as typeof before;
    assert.equal(
      afterLoad.snapshot.sections['/settings/WEB/server']?.password,
      before.snapshot.sections['/settings/WEB/server']?.password,
    );
  });

  void it('password --set and --display', async () => {
    assert.equal((await agent(['web', 'password', '--settings', file, '--set', 'n3w-pw'])).code, 0);
    const shown = await agent(['web', 'password', '--settings', file, '--display']);
    assert.equal(shown.code, 0);
    assert.match(shown.stdout, /web password for user root: n3w-pw/);
    assert.equal((await agent(['web', 'password', '--settings', file])).code, 2);
    assert.equal((await agent(['web', 'password', '--settings', file, '--set', ''])).code, 2);
  });

  void it('add-user stores a pbkdf2 hash and the role', async () => {
    const r = await agent([
      'web',
      'add-user',
      '--settings',
      file,
      '--user',
      'ann',
      '--password',
      'ann-pw',
      '--role',
      'viewer',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(readFileSync(file, 'utf8'), /ann-pw/);
    const loaded = await loadSettingsFile(file);
    assert.ok(loaded.ok);
    const ann = loaded.snapshot.users.get('ann');
    assert.equal(ann?.values.role, 'viewer');
    assert.match(String(ann.values.password), /^pbkdf2-sha256\$600000\$/);
    assert.equal(await verifyPassword('ann-pw', String(ann.values.password)), true);
    const rootUser = await agent(['web', 'add-user', '--settings', file, '--user', 'root', '--password', 'x']);
    assert.equal(rootUser.code, 2, 'root is built in');
    assert.equal((await agent(['web', 'add-user', '--settings', file, '--password', 'x'])).code, 2);
  });

  void it('add-role appends privileges without repeating them', async () => {
    assert.equal(
      (await agent(['web', 'add-role', '--settings', file, '--role', 'viewer', '--grant', 'modules.*,info.get'])).code,
      0,
    );
    assert.equal(
      (await agent(['web', 'add-role', '--settings', file, '--role', 'ops', '--grant', 'logs.list'])).code,
      0,
    );
    const loaded = await loadSettingsFile(file);
    assert.ok(loaded.ok);
    assert.deepEqual(loaded.snapshot.roles.get('viewer'), ['info.get', 'modules.*']);
    assert.deepEqual(loaded.snapshot.roles.get('ops'), ['logs.list']);
    assert.equal((await agent(['web', 'add-role', '--settings', file, '--role', 'ops'])).code, 2);
    assert.equal(
      (await agent(['web', 'add-role', '--settings', file, '--role', 'ops', '--grant', 'bad grant'])).code,
      2,
    );
  });

  void it('finds existing keys whatever their case: install keeps PassWord, add-role extends a role written in another case', async () => {
    const other = join(dir, 'cased.ini');
    writeFileSync(
      other,
      '[/modules]\nWEBServer = disabled\n\n[/settings/WEB/server]\nPassWord = old\n\n[/settings/web/roles]\nViewer = info.get\n',
    );
    const r = await agent(['web', 'install', '--settings', other]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /web password for user root:/);
    assert.match(r.stdout, /the existing web password stays/);
    const loaded = await loadSettingsFile(other);
    assert.ok(loaded.ok);
    assert.equal(loaded.snapshot.sections['/settings/WEB/server']?.password, 'old');
    const fromDefault = join(dir, 'cased-default.ini');
    writeFileSync(fromDefault, '[/settings/default]\nPASSWORD = shared\n');
    const d = await agent(['web', 'install', '--settings', fromDefault]);
    assert.equal(d.code, 0, d.stderr);
    assert.doesNotMatch(d.stdout, /web password for user root:/);
    assert.doesNotMatch(readFileSync(fromDefault, 'utf8'), /\[\/settings\/WEB\/server\]\npassword/i);
    assert.equal(
      (await agent(['web', 'add-role', '--settings', other, '--role', 'viewer', '--grant', 'logs.list'])).code,
      0,
    );
    assert.match(readFileSync(other, 'utf8'), /^Viewer = info\.get, logs\.list$/im);
  });

  void it('refuses a settings file that does not exist (exit 2, naming it) and creates one only with --create', async () => {
    const missing = join(dir, 'mistyped.ini');
    for (const args of [
      ['add-user', '--user', 'ann', '--password', 'x'],
      ['install'],
      ['password', '--set', 'x'],
      ['add-role', '--role', 'ops', '--grant', 'logs.list'],
    ]) {
      const r = await agent(['web', ...args, '--settings', missing]);
      assert.equal(r.code, 2, `${args[0]}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} does not exist.*--create`));
      assert.doesNotMatch(r.stdout + r.stderr, /\.tmp|\.lock/);
      assert.equal(existsSync(missing), false, `${args[0]} created the file`);
    }
    const created = await agent([
      'web',
      'add-user',
      '--settings',
      missing,
      '--create',
      '--user',
      'ann',
      '--password',
      'x',
      '--role',
      'viewer',
    ]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(readFileSync(missing, 'utf8'), /^\[\/settings\/web\/users\/ann\]\npassword = pbkdf2-sha256\$/);
    // It holds a password hash: readable by its owner only.
    assert.equal(statSync(missing).mode & 0o777, 0o600);
  });

  void it('answers usage errors with exit 2 and help with exit 0', async () => {
    assert.equal((await agent(['web'])).code, 2);
    assert.equal((await agent(['web', 'explode'])).code, 2);
    assert.equal((await agent(['web', 'install', '--settings', file, '--port', '99999'])).code, 2);
    assert.equal((await agent(['web', 'install', '--settings', file, '--allowed-hosts', 'example.com'])).code, 2);
    assert.equal((await agent(['web', 'install', '--settings', file, '--colour', 'red'])).code, 2);
    for (const sub of ['install', 'password', 'add-user', 'add-role']) {
      const h = await agent(['web', sub, '--help']);
      assert.equal(h.code, 0);
      assert.match(h.stdout, new RegExp(`Usage: config-agent web ${sub}`));
    }
  });
});
