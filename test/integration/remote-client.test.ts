/**
 * Our remote client against Debian's NRPE daemon, over TLS (anonymous DH)
 * and plain TCP, v2, v4 and auto; and `config-agent client remote_query` standing
 * in for check_nrpe.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNrpeDaemon, type NrpeDaemon } from '../helpers/nrpe-daemon.js';
import { MAIN } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { runRemoteQuery } from '../../src/modules/remote-client/remote-query.js';
import { loadSettingsText } from '../../src/settings/model/load.js';
import { moduleView } from '../../src/settings/model/module-view.js';
import { MODULE_SECTIONS } from '../../src/settings/model/module-table.js';
import type { Snapshot } from '../../src/settings/model/snapshot.js';

let tlsDaemon: NrpeDaemon;
let plainDaemon: NrpeDaemon;
let snapshot: Snapshot;
const made = new Teardown();
after(() => made.close());
const dir = mkdtempSync(join(tmpdir(), 'remote-client-'));
made.defer(() => rmSync(dir, { recursive: true, force: true }));

before(async () => {
  const register = (d: NrpeDaemon) => made.add(d, (started) => started.stop());
  [tlsDaemon, plainDaemon] = await Promise.all([
    startNrpeDaemon().then(register),
    startNrpeDaemon({ plain: true }).then(register),
  ]);
  const loaded = loadSettingsText(
    `[/settings/remote/client/targets/debian]\naddress = 127.0.0.1:${tlsDaemon.port}\ntimeout = 5\n\n[/settings/remote/client/targets/debian-plain]\nparent = debian\naddress = 127.0.0.1:${plainDaemon.port}\nuse ssl = 0\n`,
    join(dir, 'agent.ini'),
  );
  assert.ok(loaded.ok, JSON.stringify(loaded.problems));
  snapshot = loaded.snapshot;
});

const query = (...args: string[]) =>
  runRemoteQuery('remote_query', 'query', args, moduleView(MODULE_SECTIONS.RemoteClient, snapshot));

for (const [mode, target] of [
  ['TLS', 'debian'],
  ['plain', 'debian-plain'],
] as const) {
  for (const version of ['auto', '2', '4']) {
    void test(`${mode} v${version}: check_ok with message and perf data`, async () => {
      const r = await query('--target', target, '--version', version, '--command', 'check_ok');
      assert.equal(r.result, 0, r.message);
      assert.equal(r.message, 'OK: fine');
      assert.deepEqual(r.perf, [{ alias: 'x', value: 1, warning: 2, critical: 3 }]);
    });
  }
  void test(`${mode}: a WARNING command keeps its status`, async () => {
    const r = await query(`target=${target}`, 'command=check_warn');
    assert.equal(r.result, 1);
    assert.equal(r.message, 'WARNING: meh');
  });
  void test(`${mode}: an unknown command is UNKNOWN with the daemon's text`, async () => {
    const r = await query('--target', target, '--command', 'no_such_command');
    assert.equal(r.result, 3);
    assert.equal(r.message, "NRPE: Command 'no_such_command' not defined");
  });
  void test(`${mode}: a 3,000-byte answer arrives whole over v4 and cut to 1,023 over v2`, async () => {
    const v4 = await query('--target', target, '--command', 'check_big');
    assert.equal(v4.message, 'x'.repeat(3000));
    const v2 = await query('--target', target, '--command', 'check_big', '--version', '2');
    assert.equal(v2.message, 'x'.repeat(1023));
  });
  void test(`${mode}: arguments are refused by the Debian daemon: UNKNOWN saying the request was refused`, async () => {
    const r = await query('--target', target, '--command', 'check_args', '--arguments', 'a', 'b');
    assert.equal(r.result, 3);
    assert.match(r.message, /closed the connection without answering: the server refused the request/);
  });
}

void test('a command the daemon times out is UNKNOWN with its message', async () => {
  const r = await query('--target', 'debian', '--command', 'check_slow');
  assert.equal(r.result, 3);
  assert.equal(r.message, 'NRPE: Command timed out after 2 seconds');
});

void test('our own timeout ends a slow query with UNKNOWN within the timeout', async () => {
  const started = Date.now();
  const r = await query('--target', 'debian', '--command', 'check_slow', '--timeout', '1');
  assert.equal(r.result, 3);
  assert.match(r.message, /no answer from 127\.0\.0\.1:\d+ within 1 s/);
  assert.ok(Date.now() - started < 1900, `took ${Date.now() - started} ms`);
});

void test('plain client against the TLS daemon, and TLS client against the plain one, fail clearly', async () => {
  const a = await query('--target', 'debian', '--no-ssl', '--command', 'check_ok');
  assert.equal(a.result, 3);
  assert.match(a.message, /remote_query: /);
  const b = await query('--target', 'debian-plain', '--ssl', '--command', 'check_ok');
  assert.equal(b.result, 3);
  assert.match(
    b.message,
    /TLS with 127\.0\.0\.1:\d+ failed: connection reset by peer during the TLS handshake: the server waits for a plain NRPE packet \(is it in plain mode\? try --no-ssl\)/,
  );
});

void test('a TLS daemon that does not allow our address: the reset says so, not "plain mode"', async () => {
  const strict = await startNrpeDaemon({ allowedHosts: '127.0.0.2' });
  try {
    const r = await query('--host', '127.0.0.1', '--port', String(strict.port), '--command', 'check_ok');
    assert.equal(r.result, 3);
    assert.match(
      r.message,
      /failed: connection (reset|closed) by peer during the TLS handshake: the server closes connections from our address at once \(is our address in its allowed hosts\?\)/,
    );
    assert.match(strict.log(), /not allowed to talk to us/);
  } finally {
    await strict.stop();
  }
});

void test('an explicit target that does not exist is UNKNOWN naming it', async () => {
  const r = await query('--target', 'nope', '--command', 'check_ok');
  assert.equal(r.result, 3);
  assert.match(r.message, /target "nope" is not defined/);
});

void test('config-agent client remote_query stands in for check_nrpe: Nagios output and exit status', async () => {
  const run = (args: string[]) =>
    new Promise<{ code: number; out: string }>((resolve) => {
      execFile(
        process.execPath,
        [MAIN, 'client', '--settings', join(dir, 'missing.ini'), 'remote_query', ...args],
        { timeout: 20_000 },
        (err, stdout) => {
          resolve({ code: err ? Number(err.code) : 0, out: stdout });
        },
      );
    });
  const warn = await run(['--host', '127.0.0.1', '--port', String(tlsDaemon.port), '--command', 'check_warn']);
  assert.deepEqual(warn, { code: 1, out: "WARNING: meh|'w'=5\n" });
  const plain = await run(['--host', '127.0.0.1', '--port', String(plainDaemon.port), '--no-ssl', '-c', 'check_ok']);
  assert.deepEqual(plain, { code: 0, out: "OK: fine|'x'=1;2;3\n" });
});
