/**
 * `config-agent web …` on a host file whose web settings live in an included
 * shared base, as processes: each key is written to the file that holds it
 * (the base), the host file stays as it was, a new key goes to the host
 * file, and the output names the file written.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgentCli } from '../../helpers/run-cli.js';

const BASE = `[/modules]
WEBServer = enabled

[/settings/WEB/server]
port = 18443s
password = old-base-password

[/settings/web/roles]
ops = info.get

[/settings/web/users/ann]
password = old-ann-password
role = ops
`;
const HOST = `[/includes]
base = ../shared/base.ini

[/settings/default]
allowed hosts = 127.0.0.1
`;

void describe('config-agent web over [/includes]', () => {
  let dir = '';
  let base = '';
  let host = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'web-includes-'));
    mkdirSync(join(dir, 'shared'));
    mkdirSync(join(dir, 'hosts'));
    base = join(dir, 'shared', 'base.ini');
    host = join(dir, 'hosts', 'h1.ini');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const reset = (): void => {
    writeFileSync(base, BASE);
    writeFileSync(host, HOST);
  };

  void it('password --set changes the base that holds the key, not the host file, and names the base', async () => {
    reset();
    const r = await runAgentCli(['web', 'password', '--set', 'new-root-password', '--settings', host]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`password for user root set in ${base.replace(/[.]/g, '\\.')};`));
    assert.equal(readFileSync(host, 'utf8'), HOST);
    // The password goes to the host's state folder; the base reads it by absolute path (a relative one would start at shared/).
    assert.equal(
      readFileSync(base, 'utf8'),
      BASE.replace(
        'password = old-base-password',
        `password = \${file:${join(dir, 'hosts', 'state', 'web-password')}}`,
      ),
    );
    assert.equal(readFileSync(join(dir, 'hosts', 'state', 'web-password'), 'utf8'), 'new-root-password\n');
    const shown = await runAgentCli(['web', 'password', '--display', '--settings', host]);
    assert.match(shown.stdout, /web password for user root: new-root-password/);
  });

  void it('add-user of a user defined in the base edits the base; add-role of a base role too', async () => {
    reset();
    const r = await runAgentCli([
      'web',
      'add-user',
      '--user',
      'ann',
      '--password',
      'new-ann-password',
      '--settings',
      host,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /user ann written to \[\/settings\/web\/users\/ann\] in .*shared\/base\.ini \(password stored as a pbkdf2-sha256 hash, role ops\)/,
    );
    assert.equal(readFileSync(host, 'utf8'), HOST);
    assert.match(
      readFileSync(base, 'utf8'),
      /\[\/settings\/web\/users\/ann\]\npassword = pbkdf2-sha256\$[^\n]+\nrole = ops\n/,
    );
    assert.doesNotMatch(r.stderr, /not defined/, 'the role defined in the base counts');
    const role = await runAgentCli(['web', 'add-role', '--role', 'ops', '--grant', 'logs.list', '--settings', host]);
    assert.equal(role.code, 0, role.stderr);
    assert.match(role.stdout, /role ops: info\.get, logs\.list in .*shared\/base\.ini/);
    assert.match(readFileSync(base, 'utf8'), /ops = info\.get, logs\.list/);
    assert.equal(readFileSync(host, 'utf8'), HOST);
  });

  void it('install writes keys the base holds to the base and new keys to the host file, naming both', async () => {
    reset();
    const r = await runAgentCli([
      'web',
      'install',
      '--port',
      '9443',
      '--allowed-hosts',
      '10.0.0.1',
      '--settings',
      host,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /WEBServer enabled in .*shared\/base\.ini and .*hosts\/h1\.ini on port 9443/);
    assert.match(readFileSync(base, 'utf8'), /port = 9443s\npassword = old-base-password\n/);
    assert.equal(readFileSync(host, 'utf8'), `${HOST}\n[/settings/WEB/server]\nallowed hosts = 10.0.0.1\n`);
    const valid = await runAgentCli(['settings', 'validate', host]);
    assert.equal(valid.code, 0, valid.stdout + valid.stderr);
    const fmt = await runAgentCli(['settings', 'fmt', '--check', host, base]);
    assert.equal(fmt.code, 0, `the edits keep both files canonical: ${fmt.stdout}`);
  });
});
