/**
 * `config-agent web add-user` and `config-agent web install` with NSClient++'s semantics,
 * run as the real command: add-user keeps an existing user's password when
 * only --role is given and writes the role client (defined when missing)
 * with a warning when no role is given; install takes --https,
 * --certificate and --certificate-key (checked before they are written) and
 * refuses a password shorter than 8 characters unless --allow-weak-password.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgentCli } from '../../helpers/run-cli.js';
import { loadSettingsFile } from '../../../src/settings/store/load-file.js';
import { verifyPassword } from '../../../src/web/password-hash.js';
import { certDir } from '../../helpers/agent-certs.js';

const agent = (args: string[]) => runAgentCli(args);

void describe('config-agent web with NSClient++ semantics', () => {
  const dir = mkdtempSync(join(tmpdir(), 'web-nsclient-'));
  const certs = certDir();
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    certs.remove();
  });

  void it('add-user without --role writes role client with a warning, defining client when the file lacks it', async () => {
    const file = join(dir, 'a.ini');
    writeFileSync(file, '[/modules]\nWEBServer = enabled\n');
    const r = await agent(['web', 'add-user', '--settings', file, '--user', 'bob', '--password', 'bob-secret']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /warning: no --role given: user bob gets the role client/);
    assert.match(r.stderr, /role client was not defined; added to \[\/settings\/web\/roles\]/);
    const loaded = await loadSettingsFile(file);
    assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.problems));
    assert.equal(loaded.snapshot.users.get('bob')?.values.role, 'client');
    assert.deepEqual(loaded.snapshot.roles.get('client'), [
      'public',
      'info.get',
      'queries.list',
      'queries.get',
      'queries.execute',
      'aliases.list',
      'modules.list',
    ]);
    assert.deepEqual(
      loaded.warnings.filter((w) => w.code === 'AGENT_WARN_ROLE_UNKNOWN'),
      [],
    );
  });

  void it('add-user with only --role keeps the existing password; without --role an existing role stays', async () => {
    const file = join(dir, 'b.ini');
    writeFileSync(file, '[/settings/web/roles]\nops = *\nclient = queries.list\n');
    assert.equal(
      (
        await agent([
          'web',
          'add-user',
          '--settings',
          file,
          '--user',
          'ann',
          '--password',
          'ann-secret',
          '--role',
          'client',
        ])
      ).code,
      0,
    );
    const before = readFileSync(file, 'utf8');
    const hash = /password = (\S+)/.exec(before)?.[1] as string;
    const r = await agent(['web', 'add-user', '--settings', file, '--user', 'ann', '--role', 'ops']);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /password for user ann:/, 'no new password is printed');
    assert.match(r.stdout, /password kept, role ops/);
    const text = readFileSync(file, 'utf8');
    assert.equal(/password = (\S+)/.exec(text)?.[1], hash);
    assert.ok(await verifyPassword('ann-secret', hash));
    assert.match(text, /role = ops\n/);
    assert.match(
      text,
      /\[\/settings\/web\/roles\]\nops = \*\nclient = queries\.list\n/,
      'an existing client role is left alone',
    );
    const again = await agent(['web', 'add-user', '--settings', file, '--user', 'ann', '--password', 'new-secret']);
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stderr, /no --role given/);
    assert.match(readFileSync(file, 'utf8'), /role = ops\n/);
    const loaded = await loadSettingsFile(file);
    assert.ok(loaded.ok);
    assert.ok(await verifyPassword('new-secret', String(loaded.snapshot.users.get('ann')?.values.password)));
  });

  void it('install refuses a password shorter than 8 characters unless --allow-weak-password', async () => {
    const file = join(dir, 'c.ini');
    writeFileSync(file, '[/modules]\n');
    const weak = await agent(['web', 'install', '--settings', file, '--password', 'short']);
    assert.equal(weak.code, 2);
    assert.match(weak.stderr, /shorter than 8 characters.*--allow-weak-password/);
    assert.equal(readFileSync(file, 'utf8'), '[/modules]\n', 'nothing written');
    const forced = await agent(['web', 'install', '--settings', file, '--password', 'short', '--allow-weak-password']);
    assert.equal(forced.code, 0, forced.stderr);
    // Kept in the state folder, the settings read it from there (issue 29: no password in the file meant for git).
    assert.match(readFileSync(file, 'utf8'), /password = \$\{file:state\/web-password\}\n/);
    assert.equal(readFileSync(join(dir, 'state', 'web-password'), 'utf8'), 'short\n');
  });

  void it('install takes --https, --certificate and --certificate-key, and checks the files first', async () => {
    const ca = certs.ca('web-ca');
    const server = certs.issue(ca, 'web', 'server');
    const other = certs.issue(ca, 'other', 'server');
    const file = join(dir, 'd.ini');
    writeFileSync(file, '[/settings/WEB/server]\nport = 9443\n');
    const r = await agent([
      'web',
      'install',
      '--settings',
      file,
      '--https',
      '--certificate',
      server.cert,
      '--certificate-key',
      server.key,
      '--password',
      'long-enough',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const loaded = await loadSettingsFile(file);
    assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.problems));
    const web = loaded.snapshot.sections['/settings/WEB/server'] as Record<string, unknown>;
    assert.equal(web.port, '9443s', '--https gives the existing port its s');
    assert.equal(web.certificate, server.cert);
    assert.equal(web['certificate key'], server.key);
    const mismatch = await agent([
      'web',
      'install',
      '--settings',
      file,
      '--certificate',
      server.cert,
      '--certificate-key',
      other.key,
    ]);
    assert.equal(mismatch.code, 2);
    assert.match(mismatch.stderr, /--certificate-key .*other/);
    const notPem = await agent(['web', 'install', '--settings', file, '--certificate', file]);
    assert.equal(notPem.code, 2);
    assert.match(notPem.stderr, /not a PEM certificate/);
    assert.equal((await agent(['web', 'install', '--settings', file, '--certificate-key', server.key])).code, 2);
    assert.equal(
      (await agent(['web', 'install', '--settings', file, '--certificate', join(dir, 'missing.pem')])).code,
      2,
    );
  });
});
