/**
 * `agent settings import` run as the real command on nsclient.ini files
 * modelled on real ones (test/fixtures/nsclient/): the file `nscp settings
 * --generate` writes, an NRPE server with scripts and aliases, web users and
 * roles, client targets and templates. Each result passes `agent settings
 * validate` (run as a process too); the report names file:line, key and why;
 * comments stay above what they described; unknown modules are listed.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAgentCli } from '../../helpers/run-cli.js';
import { certDir } from '../../helpers/agent-certs.js';

const FIXTURES = fileURLToPath(new URL('../../../../test/fixtures/nsclient/', import.meta.url));

const agent = (args: string[]) => runAgentCli(args);

describe('agent settings import', () => {
  const dir = mkdtempSync(join(tmpdir(), 'import-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const name of ['generated', 'nrpe-scripts-aliases', 'web-users-roles', 'targets-templates']) {
    it(`${name}.ini translates into a file that agent settings validate accepts`, async () => {
      const out = join(dir, `${name}.ini`);
      const r = await agent(['settings', 'import', join(FIXTURES, `${name}.ini`), '--output', out]);
      if (name === 'generated') {
        // Its NRPE and web servers name ${certificate-path}/certificate.pem (NSClient++ uses it, insecure or not): written, valid once the file is there.
        assert.equal(r.code, 1, r.stderr);
        assert.match(r.stderr, /cannot read certificate file .*security\/certificate\.pem/);
        assert.match(r.stderr, /is written but does not validate on this machine until the files named above exist/);
        assert.equal((await agent(['settings', 'validate', out])).code, 1);
        const certs = certDir();
        const server = certs.issue(certs.ca('ca'), 'server', 'server');
        mkdirSync(join(dir, 'security'), { recursive: true });
        writeFileSync(join(dir, 'security', 'certificate.pem'), readFileSync(server.cert, 'utf8') + readFileSync(server.key, 'utf8'));
        certs.remove();
      } else {
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stderr, /validates \(agent settings validate /);
      }
      const v = await agent(['settings', 'validate', out]);
      assert.equal(v.code, 0, v.stdout + v.stderr);
      assert.match(v.stdout, /: valid \(0 error\(s\)/);
    });
  }

  it('the generated file: renamed modules, dropped keys with file:line and why, unsupported modules listed', async () => {
    const src = join(FIXTURES, 'generated.ini');
    const r = await agent(['settings', 'import', src]);
    assert.equal(r.code, 1, r.stderr);
    const text = r.stdout;
    assert.match(text, /^# For details run: nscp settings --help\n\n; in flight - TODO\n\[\/settings\/default\]\n; Undocumented key\npassword = /m);
    assert.match(text, /^\[\/modules\]\n; Undocumented key\nCheckExternalScripts = enabled\n\n; Undocumented key\nCheckHelpers = enabled/m);
    assert.match(text, /\n; Undocumented key\nRemoteServer = enabled\n/);
    assert.match(text, /\[\/settings\/remote\/server\]\n; Undocumented key\nverify mode = none\n\n; PORT NUMBER - Port to use for NRPE\.\nport = 5666/);
    assert.match(text, /\[\/settings\/WEB\/server\]\n; Undocumented key\nport = 8443s\n/);
    assert.doesNotMatch(text, /cache allowed hosts|thread pool|\[\/settings\/crash\]|insecure|check_eventlog/);
    const report = r.stderr;
    const at = (line: number, rest: string): void => assert.ok(report.includes(`${src}:${line}: ${rest}`), `report has ${src}:${line}: ${rest}\n${report}`);
    at(18, '[/settings/default] cache allowed hosts: dropped: no key here: host names in allowed hosts are resolved at start and on each reload');
    at(25, '[/settings/NRPE/server]: renamed: to [/settings/remote/server]');
    at(31, '[/settings/NRPE/server] insecure: dropped:');
    at(31, '[/settings/NRPE/server] insecure: dropped: no key here: insecure = true changes NSClient++\'s defaults');
    at(46, '[/settings/NRPE/server] certificate: note: kept: copy ${certificate-path}/certificate.pem');
    at(80, '[/modules] NRPEServer: renamed: to RemoteServer');
    at(65, '[/modules] CheckEventLog: dropped: Windows-only module: the Windows event log');
    at(155, '[/settings/external scripts/alias] alias_event_log: dropped: not accepted here: alias "alias_event_log" runs check_eventlog, which is not a query here');
    assert.match(report, /NSClient\+\+ modules not carried over \(not supported here\): CheckEventLog, CheckNSCP\n/);
  });

  it('scripts, long-form scripts and aliases: paths relative to the script root, comments kept, a legacy check name kept', async () => {
    const src = join(FIXTURES, 'nrpe-scripts-aliases.ini');
    const r = await agent(['settings', 'import', src, '--format', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout) as { valid: boolean; output: null; settings: string; changes: { line: number; key?: string; action: string; detail: string }[]; unsupportedModules: string[] };
    assert.equal(j.valid, true);
    assert.match(j.settings, /\n; counts lines of the mail queue\ncheck_mailq_lines = check_mailq\.sh \$ARG1\$ \$ARG2\$\n/);
    assert.match(j.settings, /check_inline = .*\n\n; the long form, with a user NSClient\+\+ would switch to\ncheck_raid = check_raid\.sh --all\n/);
    assert.match(j.settings, /; CPU with thresholds from the caller\nalias_cpu = check_cpu "warn=load > \$ARG1\$" "crit=load > \$ARG2\$"\n/);
    assert.match(j.settings, /\[\/settings\/external scripts\/wrapped scripts\]\ncheck_certs = check_certs\.sh \$ARG1\$\ncheck_queue = check_queue\.py --warn 10\n/);
    // NSClient++'s legacy names are queries here too: the alias is kept as it is.
    assert.equal(j.changes.find((c) => c.key === 'alias_legacy')?.action, 'kept');
    assert.match(j.settings, /\nalias_legacy = checkCPU warn=80 crit=90 time=5m\n/);
    assert.equal(j.changes.find((c) => c.key === 'user')?.detail, 'not supported: scripts run as the agent\'s user');
    assert.deepEqual(j.unsupportedModules, []);
  });

  it('web users and roles move to /settings/web, templates and hashes kept', async () => {
    const out = join(dir, 'web.ini');
    const r = await agent(['settings', 'import', join(FIXTURES, 'web-users-roles.ini'), '--output', out]);
    assert.equal(r.code, 0, r.stderr);
    const text = readFileSync(out, 'utf8');
    assert.match(text, /\[\/settings\/web\/roles\]\n; the roles NSClient\+\+ seeds\nfull = \*\n/);
    assert.match(text, /\[\/settings\/web\/users\/admin\]\npassword = pbkdf2-sha256\$100000\$0011/);
    assert.match(text, /; a template every dashboard user inherits from\n\[\/settings\/web\/users\/dash\]\nis template = true\nrole = client\n/);
    assert.match(text, /\[\/settings\/web\/users\/alice\]\nparent = dash\npassword = alice-secret\n/);
  });

  it('targets and templates: one-liners, parents, NSCP targets, unsupported sections reported', async () => {
    const src = join(FIXTURES, 'targets-templates.ini');
    const r = await agent(['settings', 'import', src]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\[\/settings\/remote\/client\/targets\]\nweb01 = 10\.0\.0\.11:5666\nweb02 = 10\.0\.0\.12\n/);
    assert.match(r.stdout, /\[\/settings\/remote\/client\/targets\/db01\]\nparent = linux\n/);
    assert.match(r.stdout, /\[\/settings\/agent\/client\/targets\/hub\]\naddress = 10\.0\.0\.2:5668\ncertificate = \$\{base-path\}\/security\/client\.pem\n/);
    assert.ok(r.stderr.includes(`${src}:40: [/settings/scheduler/schedules/default]: dropped: belongs to Scheduler, which is not supported here (2 key(s) dropped with it)`), r.stderr);
    assert.match(r.stderr, /modules not carried over \(not supported here\): Scheduler, NSCAClient/);
  });

  it('usage: an existing --output needs --force; an unreadable input is exit 2', async () => {
    const out = join(dir, 'exists.ini');
    writeFileSync(out, '[/modules]\n');
    const r = await agent(['settings', 'import', join(FIXTURES, 'generated.ini'), '--output', out]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /exists; give --force/);
    assert.equal(readFileSync(out, 'utf8'), '[/modules]\n');
    assert.equal((await agent(['settings', 'import', join(dir, 'missing.ini')])).code, 2);
    assert.equal((await agent(['settings', 'import'])).code, 2);
    assert.ok(!existsSync(join(dir, 'missing.ini')));
  });
});
