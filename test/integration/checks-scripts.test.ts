/**
 * CheckExternalScripts as a module in a real core: configured scripts are
 * queries, the `CheckExternalScripts` exec command lists, shows, adds and
 * removes them (the settings file changes through the minimal-edit
 * writer), and stopping the module kills running scripts; scripts start
 * through the script spawner (spawner.ts), the one way programs start.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettingsFile } from '../../src/settings/store/load-file.js';
import { moduleView } from '../../src/settings/model/module-view.js';
import { MODULE_SECTIONS } from '../../src/settings/model/module-table.js';
import { startLocalCore, type LocalCore } from '../../src/cli/local-core.js';
import { createCore } from '../../src/core/core-impl.js';
import { sink } from '../../src/log.js';
import { agentModule } from '../../src/modules/check-external-scripts/index.js';
import { Teardown } from '../helpers/teardown.js';

{
  void describe('scripts started by the script spawner', () => {
    let dir = '';
    let ini = '';
    let local: LocalCore;
    const made = new Teardown();

    const sh = (name: string, body: string): void =>
      writeFileSync(join(dir, 'scripts', name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'checks-scripts-'));
      made.defer(() => rmSync(dir, { recursive: true, force: true }));
      mkdirSync(join(dir, 'scripts'));
      sh('ok.sh', 'echo "fine|t=1s"');
      sh('code.sh', 'echo "code $1"; exit $1');
      sh('slow.sh', 'sleep 30 &\necho $! > "$1"\nwait');
      ini = join(dir, 'agent.ini');
      writeFileSync(
        ini,
        `[/modules]
CheckExternalScripts = enabled
CheckHelpers = enabled

[/settings/external scripts]
timeout = 2
allow arguments = true
max concurrent = 2

; scripts, one per line
[/settings/external scripts/scripts]
check_fine = ok.sh
check_code = code.sh $ARG1$
check_slow = slow.sh ${join(dir, 'slow.pid')}
check_inline = /bin/sh -c "echo inline; exit 1"
`,
      );
      const loaded = await loadSettingsFile(ini);
      assert.ok(loaded.ok, JSON.stringify(loaded.problems));
      local = made.add(await startLocalCore(loaded.snapshot), (l) => l.stop());
      assert.deepEqual(local.failed, []);
    });

    after(() => made.close());

    void test(`configured scripts are queries with status, message and perf`, async () => {
      const r = await local.core.query('check_fine');
      assert.deepEqual([r.result, r.message, r.perf], [0, 'fine', [{ alias: 't', value: 1, unit: 's' }]]);
      for (const code of ['0', '1', '2', '3', '255']) {
        const c = await local.core.query('check_code', [code]);
        assert.equal(c.result, Number(code) <= 3 ? Number(code) : 3);
      }
      assert.deepEqual(await local.core.query('check_inline').then((x) => [x.result, x.message]), [1, 'inline']);
      const info = local.core.getQuery('check_fine');
      assert.equal(info?.module, 'CheckExternalScripts');
    });

    void test(`a script that runs too long is killed with its children`, async () => {
      const started = Date.now();
      const r = await local.core.query('check_slow');
      assert.deepEqual([r.result, r.message], [3, 'Script check_slow timed out after 2 s']);
      assert.ok(Date.now() - started < 6000);
      const pid = Number(readFileSync(join(dir, 'slow.pid'), 'utf8'));
      for (let i = 0; i < 50 && alive(pid); i++) await new Promise((res) => setTimeout(res, 20));
      assert.equal(alive(pid), false);
    });

    void test(`check_timeout answers on time around a slow script`, async () => {
      const started = Date.now();
      const r = await local.core.query('check_timeout', ['command=check_slow', 'timeout=0.3', 'return=critical']);
      assert.deepEqual([r.result, r.message], [2, 'Command check_slow timed out after 0.3 s']);
      assert.ok(Date.now() - started < 1500);
    });

    void test(`the exec command lists, shows, adds and deletes scripts`, async () => {
      const exec = (...args: string[]): Promise<{ result: number; message: string }> =>
        local.core.exec('CheckExternalScripts', args);
      assert.deepEqual(await exec('list', '--json'), {
        command: 'CheckExternalScripts',
        result: 0,
        message: '["check_code","check_fine","check_inline","check_slow"]',
      });
      assert.deepEqual(JSON.parse((await exec('list', '--json', '--all')).message), ['code.sh', 'ok.sh', 'slow.sh']);
      assert.equal((await exec('show', '--script', 'check_code')).message, 'code.sh $ARG1$');
      assert.equal((await exec('show', '--script', 'ok.sh')).message, '#!/bin/sh\necho "fine|t=1s"\n');
      assert.equal((await exec('show', '--script', '../agent.ini')).result, 2);
      const before = readFileSync(ini, 'utf8');
      const added = await exec(
        'add',
        '--script',
        'more/check_new.sh',
        '--content-base64',
        Buffer.from('#!/bin/sh\necho "new one"; exit 1\n').toString('base64'),
      );
      assert.deepEqual([added.result, added.message], [0, 'Added check_new as more/check_new.sh']);
      assert.equal(
        readFileSync(ini, 'utf8'),
        before.replace(
          'check_inline = /bin/sh -c "echo inline; exit 1"\n',
          'check_inline = /bin/sh -c "echo inline; exit 1"\ncheck_new = more/check_new.sh\n',
        ),
      );
      const ran = await local.core.query('check_new');
      assert.deepEqual([ran.result, ran.message], [1, 'new one'], 'an added script is a query at once');
      const reloaded = await loadSettingsFile(ini);
      assert.ok(reloaded.ok, 'the edited file is still valid');
      assert.deepEqual((await exec('delete', '--script', 'check_new')).result, 0);
      assert.equal(readFileSync(ini, 'utf8'), before);
      assert.equal((await local.core.query('check_new')).result, 3);
      assert.equal(existsSync(join(dir, 'scripts', 'more', 'check_new.sh')), true);
      assert.deepEqual(
        await exec('delete', '--script', 'more/check_new.sh').then((x) => x.message),
        'Script file was removed',
      );
      assert.equal((await exec('delete', '--script', 'more/check_new.sh')).result, 1);
    });

    void test(`apply follows the entries in place; stop kills running scripts`, async () => {
      const first = await loadSettingsFile(ini);
      assert.ok(first.ok);
      const core = createCore({ settings: () => first.snapshot });
      const stop = new AbortController();
      const mod = await agentModule.start({
        name: 'CheckExternalScripts',
        settings: moduleView(MODULE_SECTIONS.CheckExternalScripts, first.snapshot),
        log: sink.logger('test'),
        signal: stop.signal,
        core,
      });
      try {
        assert.ok(core.getQuery('check_fine'));
        const edited = readFileSync(ini, 'utf8')
          .replace('check_fine = ok.sh', 'check_renamed = ok.sh')
          .replace('timeout = 2', 'timeout = 20');
        writeFileSync(ini, edited);
        const next = await loadSettingsFile(ini);
        assert.ok(next.ok);
        assert.equal(await mod.apply?.(moduleView(MODULE_SECTIONS.CheckExternalScripts, next.snapshot)), true);
        assert.equal(core.getQuery('check_fine'), undefined);
        assert.equal((await core.query('check_renamed')).message, 'fine');
        const pidFile = join(dir, 'slow.pid');
        rmSync(pidFile, { force: true });
        const running = core.query('check_slow');
        for (let i = 0; i < 100 && !existsSync(pidFile); i++) await new Promise((res) => setTimeout(res, 20));
        const started = Date.now();
        await mod.stop();
        const r = await running;
        assert.deepEqual([r.result, r.message], [3, 'Script check_slow was stopped']);
        assert.ok(Date.now() - started < 3000, 'stop did not wait for the 20 s timeout');
        const pid = Number(readFileSync(pidFile, 'utf8'));
        for (let i = 0; i < 50 && alive(pid); i++) await new Promise((res) => setTimeout(res, 20));
        assert.equal(alive(pid), false);
        assert.equal(core.getQuery('check_renamed'), undefined, 'stop unregisters the queries');
      } finally {
        await mod.stop();
      }
    });
  });
}

function alive(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
