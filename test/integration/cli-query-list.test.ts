/**
 * Issue 29, item 6, as processes: `config-agent query --list` names every query
 * with its module and whether it is enabled (a configured script too);
 * check_index says the same; a one-shot `config-agent query check_cpu` labels the
 * one fresh interval it measured (`total 500ms`), not 5s/1m/5m.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgentCli } from '../helpers/run-cli.js';
import { inRange } from '../../src/in-range.js';

void describe('config-agent query --list and a one-shot check_cpu (processes)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'query-list-'));
  const file = join(dir, 'agent.ini');
  writeFileSync(
    file,
    '[/modules]\nCheckSystem = enabled\nCheckHelpers = enabled\nCheckExternalScripts = enabled\n\n[/settings/external scripts/scripts]\nmy_script = /bin/true\n',
  );
  after(() => rmSync(dir, { recursive: true, force: true }));

  void it('lists every query with its module and enabled or disabled, sorted by name', async () => {
    const r = await runAgentCli(['query', '--list', '--settings', file]);
    assert.equal(r.code, 0, r.stderr);
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.trim().split(/\s+/));
    const byName = new Map(rows.map(([name, module, state]) => [name, { module, state }]));
    assert.deepEqual(byName.get('check_cpu'), { module: 'CheckSystem', state: 'enabled' });
    assert.deepEqual(byName.get('check_index'), { module: 'CheckHelpers', state: 'enabled' });
    assert.deepEqual(byName.get('my_script'), { module: 'CheckExternalScripts', state: 'enabled' });
    assert.deepEqual(byName.get('check_tcp'), { module: 'CheckNet', state: 'disabled' });
    assert.deepEqual(byName.get('check_drivesize'), { module: 'CheckDisk', state: 'disabled' });
    assert.deepEqual(byName.get('remote_query'), { module: 'RemoteClient', state: 'disabled' });
    for (const row of rows) assert.equal(row.length, 3, row.join(' '));
    const names = rows.map((row) => inRange(row, 0));
    assert.deepEqual(
      names,
      [...names].sort((a, b) => a.localeCompare(b)),
    );
    assert.equal(
      (await runAgentCli(['query', '--list', 'check_cpu', '--settings', file])).code,
      2,
      '--list runs no query',
    );
  });

  void it('check_index names the module and enabled or disabled', async () => {
    const r = await runAgentCli([
      'query',
      '--settings',
      file,
      'check_index',
      "filter=name in ('check_cpu', 'check_tcp')",
      'list-separator=,',
    ]);
    assert.deepEqual(
      { code: r.code, out: r.stdout.trim() },
      { code: 0, out: 'check_cpu (CheckSystem, enabled),check_tcp (CheckNet, disabled)' },
    );
  });

  void it('a one-shot check_cpu labels the fresh interval it measured, once', async () => {
    const r = await runAgentCli(['query', '--settings', file, 'check_cpu', 'warn=none', 'crit=none']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^OK: .*\|'total 500ms'=\d+(\.\d+)?%\n$/);
    assert.doesNotMatch(r.stdout, /5s|1m|5m/);
  });
});
