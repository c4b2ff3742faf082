/**
 * Targets named by a client query, resolved from real settings: a template
 * (`is template = 1`) is not usable by itself, and a name that does not
 * exist is refused; both messages list the targets that exist. `agent
 * client remote_query --target` run as a process answers UNKNOWN saying so.
 * prepareClientQuery, the start of every client query, answers help and
 * bad options or targets itself.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSettingsText } from '../../../src/settings/model/load.js';
import { mergeTarget, prepareClientQuery } from '../../../src/protocols/target-options.js';

const INI = `[/modules]
RemoteClient = enabled

[/settings/remote/client/targets]
web01 = 127.0.0.1:1

[/settings/remote/client/targets/linux]
is template = 1
timeout = 3

[/settings/remote/client/targets/db01]
parent = linux
address = 127.0.0.1:1
`;

const CONTAINER = '/settings/remote/client/targets';

void test('a template target is refused, a missing one too; both list the targets', () => {
  const loaded = loadSettingsText(INI, '/tmp/agent.ini');
  assert.ok(loaded.ok);
  const source = { targets: loaded.snapshot.targets.remote, container: CONTAINER, defaultPort: 5666 };
  const tpl = mergeTarget(source, { target: 'linux', arguments: [], positional: [] });
  assert.deepEqual(tpl, {
    ok: false,
    problem:
      'target "linux" in [/settings/remote/client/targets] is a template (is template = 1): it is usable only as the parent of other targets; targets defined: db01, web01 (templates, usable only as parent: linux)',
  });
  const missing = mergeTarget(source, { target: 'db02', arguments: [], positional: [] });
  assert.deepEqual(missing, {
    ok: false,
    problem:
      'target "db02" is not defined in [/settings/remote/client/targets]; targets defined: db01, web01 (templates, usable only as parent: linux)',
  });
  const child = mergeTarget(source, { target: 'db01', arguments: [], positional: [] });
  assert.ok(child.ok && child.settings.timeout === 3, 'a target inherits from the template');
  const none = mergeTarget(source, { arguments: [], positional: [], host: '127.0.0.1' });
  assert.ok(none.ok, 'no --target uses the default template');
});

void test('prepareClientQuery: the merged target to send to, else the answer without a connection (help, a bad option, a bad target)', () => {
  const loaded = loadSettingsText(INI, '/tmp/agent.ini');
  assert.ok(loaded.ok);
  const source = { targets: loaded.snapshot.targets.remote, container: CONTAINER, defaultPort: 5666 };
  const ready = prepareClientQuery(
    'remote_query',
    'query',
    'remote',
    ['--target', 'db01', '--command', 'check_ok'],
    source,
  );
  assert.ok(
    ready.ok &&
      ready.options.command === 'check_ok' &&
      ready.settings.host === '127.0.0.1' &&
      ready.settings.timeout === 3,
  );
  const help = prepareClientQuery('remote_query', 'query', 'remote', ['--help'], source);
  assert.ok(!help.ok && help.answer.result === 0 && help.answer.message.includes('--command'), 'help is an OK answer');
  const bad = prepareClientQuery('remote_query', 'query', 'remote', ['--no-such-option'], source);
  assert.ok(
    !bad.ok && bad.answer.result === 3 && bad.answer.message.startsWith('remote_query: '),
    'a bad option is UNKNOWN',
  );
  const missing = prepareClientQuery('agent_query', 'query', 'agent', ['--target', 'db02'], source);
  assert.ok(
    !missing.ok && missing.answer.result === 3 && missing.answer.message.includes('target "db02" is not defined'),
    'a bad target is UNKNOWN',
  );
});

void test('config-agent client remote_query --target naming a template answers UNKNOWN with the targets', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'targets-'));
  try {
    writeFileSync(join(dir, 'agent.ini'), INI);
    const main = fileURLToPath(new URL('../../../src/main.js', import.meta.url));
    const r = await new Promise<{ code: number; out: string }>((resolve) =>
      execFile(
        process.execPath,
        [
          main,
          'client',
          '--settings',
          join(dir, 'agent.ini'),
          'remote_query',
          '--target',
          'linux',
          '--command',
          'check_ok',
        ],
        { timeout: 20_000 },
        (err, stdout) =>
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, out: stdout.trim() }),
      ),
    );
    assert.equal(r.code, 3);
    assert.match(
      r.out,
      /target "linux" in \[\/settings\/remote\/client\/targets\] is a template .*targets defined: db01, web01/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
