/**
 * Edits of one settings file from many processes at once: nothing lost,
 * with no lock between them. Each edit replaces the file only while it is
 * still the one read (settings/store/checked-replace.ts, the rename-exchange
 * addon of the C build) and reads again otherwise, so these tests need the
 * C build (`npm test` runs them; `npm run test:unit` leaves them out).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { replaceIsChecked } from '../../../src/settings/store/checked-replace.js';
import { loadSettingsFile } from '../../../src/settings/store/load-file.js';
import { parseIni } from '../../../src/settings/ini/read-ini.js';
import { runAgentCli } from '../../helpers/run-cli.js';

const EDIT_INI_JS = fileURLToPath(new URL('../../../src/settings/store/edit-ini.js', import.meta.url));
const run = promisify(execFile);

/** A file with a comment and a role, which every edit must keep. */
const START = `; shared by the writers below
[/settings/web/roles]
viewer = info.get
`;

void describe('concurrent writers of one settings file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'concurrent-writers-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  void it('runs where replaces are checked (the C build made the addon)', () => {
    assert.equal(replaceIsChecked(), true);
  });

  void it('12 processes each adding a key leave 12 keys and no helper file', async () => {
    const folder = mkdtempSync(join(dir, 'processes-'));
    const file = join(folder, 'agent.ini');
    writeFileSync(file, '[/a]\nk = 1\n');
    const script = (i: number): string =>
      `import(${JSON.stringify(EDIT_INI_JS)}).then(m => m.editSettingsFile(${JSON.stringify(file)}, [{ op: 'set', section: '/a', key: 'p${i}', value: '${i}' }]))`;
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        run(process.execPath, ['--input-type=module', '-e', script(i)], { timeout: 60_000 }),
      ),
    );
    const section = parseIni(readFileSync(file, 'utf8'), file).sections.find((s) => s.path === '/a');
    assert.deepEqual(
      section?.entries.map((e) => e.key).sort(),
      ['k', ...Array.from({ length: 12 }, (_, i) => `p${i}`)].sort(),
    );
    assert.deepEqual(readdirSync(folder), ['agent.ini']);
  });

  void it('20 parallel add-user runs on one file leave 20 users, each run exiting 0', async () => {
    const folder = mkdtempSync(join(dir, 'users-'));
    const shared = join(folder, 'agent.ini');
    writeFileSync(shared, START);
    const names = Array.from({ length: 20 }, (_, i) => `user${i}`);
    // 20 processes at once on a busy 2-core machine, each with a 600,000-round PBKDF2: each may wait long for the CPU.
    const runs = await Promise.all(
      names.map((u) =>
        runAgentCli(
          ['web', 'add-user', '--settings', shared, '--user', u, '--password', `${u}-pw`, '--role', 'viewer'],
          120_000,
        ),
      ),
    );
    for (const r of runs) assert.equal(r.code, 0, r.stderr);
    const loaded = await loadSettingsFile(shared);
    assert.ok(loaded.ok);
    assert.deepEqual(
      [...loaded.snapshot.users.values()]
        .filter((u) => !u.isTemplate)
        .map((u) => u.name)
        .sort(),
      [...names].sort(),
    );
    assert.ok(readFileSync(shared, 'utf8').startsWith(START), 'the rest of the file stays');
    assert.deepEqual(readdirSync(folder), ['agent.ini'], 'no temp file left');
  });

  void it('parallel add-role runs on one role keep every grant', async () => {
    const folder = mkdtempSync(join(dir, 'roles-'));
    const shared = join(folder, 'agent.ini');
    writeFileSync(shared, START);
    const grants = ['logs.list', 'modules.list', 'queries.list', 'scripts.list', 'metrics.list'];
    const runs = await Promise.all(
      grants.map((g) =>
        runAgentCli(['web', 'add-role', '--settings', shared, '--role', 'viewer', '--grant', g], 120_000),
      ),
    );
    for (const r of runs) assert.equal(r.code, 0, r.stderr);
    const loaded = await loadSettingsFile(shared);
    assert.ok(loaded.ok);
    assert.deepEqual([...(loaded.snapshot.roles.get('viewer') ?? [])].sort(), ['info.get', ...grants].sort());
  });
});
