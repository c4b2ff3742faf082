/**
 * What a query that does not exist answers: the module and the [/modules]
 * line that would enable it, or "did you mean" for a near or well-known name.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unknownQueryMessage } from '../../../src/core/unknown-query.js';
import { runAgentCli } from '../../helpers/run-cli.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

void test('a query of a module that is not enabled names the module and the line that enables it', () => {
  assert.equal(
    unknownQueryMessage('check_cpu', { CheckHelpers: true }, ['check_ok']),
    'Unknown command(s): check_cpu (a query of CheckSystem, which is not enabled: add CheckSystem = enabled to [/modules])',
  );
  assert.equal(
    unknownQueryMessage('CheckDriveSize', {}, []),
    'Unknown command(s): CheckDriveSize (a query of CheckDisk, which is not enabled: add CheckDisk = enabled to [/modules])',
  );
});

void test('a near or well-known name gets "did you mean"; a far one only the unknown', () => {
  assert.equal(
    unknownQueryMessage('check_disk', { CheckDisk: true }, ['check_drivesize']),
    'Unknown command(s): check_disk; did you mean "check_drivesize"?',
  );
  assert.equal(
    unknownQueryMessage('check_proces', {}, ['check_process']),
    'Unknown command(s): check_proces; did you mean "check_process"?',
  );
  assert.equal(
    unknownQueryMessage('alias_cpu_x', {}, ['alias_cpu_ex']),
    'Unknown command(s): alias_cpu_x; did you mean "alias_cpu_ex"?',
  );
  assert.equal(unknownQueryMessage('no_such_check', {}, ['check_ok']), 'Unknown command(s): no_such_check');
});

void test('config-agent query on a file without CheckSystem says so', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'unknown-query-'));
  try {
    writeFileSync(join(dir, 'agent.ini'), '[/modules]\nCheckHelpers = enabled\n');
    const r = await runAgentCli(['query', 'check_memory', '--settings', join(dir, 'agent.ini')]);
    assert.equal(r.code, 3);
    assert.match(
      r.stdout,
      /^Unknown command\(s\): check_memory \(a query of CheckSystem, which is not enabled: add CheckSystem = enabled to \[\/modules\]\)/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
