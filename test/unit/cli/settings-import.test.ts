/**
 * `config-agent settings import` run as the real command on nsclient.ini files
 * modelled on real ones (test/fixtures/nsclient/): the file `nscp settings
 * --generate` writes, an NRPE server with scripts and aliases, web users and
 * roles, client targets and templates. Each result passes `config-agent settings
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

void describe('config-agent settings import', () => {
  const dir = mkdtempSync(join(tmpdir(), 'import-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const name of ['generated', 'nrpe-scripts-aliases', 'web-users-roles', 'targets-templates']) {
    void it(`${name}.ini translates into a file that config-agent settings validate accepts`, async () => {
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
        writeFileSync(
          join(dir, 'security', 'certificate.pem'),
          readFileSync(server.cert, 'utf8') + readFileSync(server.key, 'utf8'),
        );
        certs.remove();
      } else {
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stderr, /validates \(config-agent settings validate /);
      }
      const v = await agent(['settings', 'validate', out]);
      assert.equal(v.code, 0, v.stdout + v.stderr);
      assert.match(v.stdout, /: valid \(0 error\(s\)/);
    });
  }

  void it('the generated file: renamed modules, dropped keys with file:line and why, unsupported modules listed', async () => {
    const src = join(FIXTURES, 'generated.ini');
    const r = await agent(['settings', 'import', src]);
    assert.equal(r.code, 1, r.stderr);
    const text = r.stdout;
    assert.match(
      text,
      /^# For details run: nscp settings --help\n\n; in flight - TODO\n\[\/settings\/default\]\n; Undocumented key\npassword = /m,
    );
    assert.match(
      text,
      /^\[\/modules\]\n; Undocumented key\nCheckExternalScripts = enabled\n\n; Undocumented key\nCheckHelpers = enabled/m,
    );
    assert.match(text, /\n; Undocumented key\nRemoteServer = enabled\n/);
    assert.match(
      text,
      /\[\/settings\/remote\/server\]\n; Undocumented key\nverify mode = none\n\n; PORT NUMBER - Port to use for NRPE\.\nport = 5666/,
    );
    assert.match(text, /\[\/settings\/WEB\/server\]\n; Undocumented key\nport = 8443s\n/);
    assert.doesNotMatch(text, /cache allowed hosts|thread pool|\[\/settings\/crash\]|insecure|check_eventlog/);
    const report = r.stderr;
    const at = (line: number, rest: string): void =>
      assert.ok(report.includes(`${src}:${line}: ${rest}`), `report has ${src}:${line}: ${rest}\n${report}`);
    at(
      18,
      '[/settings/default] cache allowed hosts: dropped: no key here: host names in allowed hosts are resolved at start and on each reload',
    );
    at(25, '[/settings/NRPE/server]: renamed: to [/settings/remote/server]');
    at(31, '[/settings/NRPE/server] insecure: dropped:');
    at(31, "[/settings/NRPE/server] insecure: dropped: no key here: insecure = true changes NSClient++'s defaults");
    at(46, '[/settings/NRPE/server] certificate: note: kept: copy ${certificate-path}/certificate.pem');
    at(80, '[/modules] NRPEServer: renamed: to RemoteServer');
    at(65, '[/modules] CheckEventLog: dropped: Windows-only module: the Windows event log');
    at(
      155,
      '[/settings/external scripts/alias] alias_event_log: dropped: not accepted here: alias "alias_event_log" runs check_eventlog, which is not a query here',
    );
    assert.match(report, /NSClient\+\+ modules not carried over \(not supported here\): CheckEventLog, CheckNSCP\n/);
  });

  void it('scripts, long-form scripts and aliases: paths relative to the script root, comments kept, a legacy check name kept', async () => {
    const src = join(FIXTURES, 'nrpe-scripts-aliases.ini');
    const r = await agent(['settings', 'import', src, '--format', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout) as {
      valid: boolean;
      output: null;
      settings: string;
      changes: { line: number; key?: string; action: string; detail: string }[];
      unsupportedModules: string[];
    };
    assert.equal(j.valid, true);
    assert.match(
      j.settings,
      /\n; counts lines of the mail queue\ncheck_mailq_lines = check_mailq\.sh \$ARG1\$ \$ARG2\$\n/,
    );
    assert.match(
      j.settings,
      /check_inline = .*\n\n; the long form, with a user NSClient\+\+ would switch to\ncheck_raid = check_raid\.sh --all\n/,
    );
    assert.match(
      j.settings,
      /; CPU with thresholds from the caller\nalias_cpu = check_cpu "warn=load > \$ARG1\$" "crit=load > \$ARG2\$"\n/,
    );
    assert.match(
      j.settings,
      /\[\/settings\/external scripts\/wrapped scripts\]\ncheck_certs = check_certs\.sh \$ARG1\$\ncheck_queue = check_queue\.py --warn 10\n/,
    );
    // NSClient++'s legacy names are queries here too: the alias is kept as it is.
    assert.equal(j.changes.find((c) => c.key === 'alias_legacy')?.action, 'kept');
    assert.match(j.settings, /\nalias_legacy = checkCPU warn=80 crit=90 time=5m\n/);
    assert.equal(j.changes.find((c) => c.key === 'user')?.detail, "not supported: scripts run as the agent's user");
    assert.deepEqual(j.unsupportedModules, []);
  });

  void it('web users and roles move to /settings/web, templates and hashes kept', async () => {
    const out = join(dir, 'web.ini');
    const r = await agent(['settings', 'import', join(FIXTURES, 'web-users-roles.ini'), '--output', out]);
    assert.equal(r.code, 0, r.stderr);
    const text = readFileSync(out, 'utf8');
    assert.match(text, /\[\/settings\/web\/roles\]\n; the roles NSClient\+\+ seeds\nfull = \*\n/);
    assert.match(text, /\[\/settings\/web\/users\/admin\]\npassword = pbkdf2-sha256\$100000\$0011/);
    assert.match(
      text,
      /; a template every dashboard user inherits from\n\[\/settings\/web\/users\/dash\]\nis template = true\nrole = client\n/,
    );
    assert.match(text, /\[\/settings\/web\/users\/alice\]\nparent = dash\npassword = alice-secret\n/);
  });

  void it('targets and templates: one-liners, parents, NSCP targets, unsupported sections reported', async () => {
    const src = join(FIXTURES, 'targets-templates.ini');
    const r = await agent(['settings', 'import', src]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /\[\/settings\/remote\/client\/targets\]\nweb01 = 10\.0\.0\.11:5666\nweb02 = 10\.0\.0\.12\n/,
    );
    assert.match(r.stdout, /\[\/settings\/remote\/client\/targets\/db01\]\nparent = linux\n/);
    assert.match(
      r.stdout,
      /\[\/settings\/agent\/client\/targets\/hub\]\naddress = 10\.0\.0\.2:5668\ncertificate = \$\{base-path\}\/security\/client\.pem\n/,
    );
    // Scheduler and NSCAClient exist here: their sections come over as they are.
    assert.match(r.stdout, /\[\/settings\/scheduler\/schedules\/default\]\ninterval = 5m\nchannel = NSCA\n/);
    assert.match(
      r.stdout,
      /\[\/settings\/NSCA\/client\/targets\/default\]\naddress = nagios\.example\.com\nencryption = aes\n/,
    );
    assert.doesNotMatch(r.stderr, /modules not carried over/);
  });

  void it('passive checks: Scheduler and NSCAClient sections come over; NSClient++-only keys and values are reported', async () => {
    const src = join(FIXTURES, 'passive-nsca.ini');
    const r = await agent(['settings', 'import', src]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /\[\/settings\/scheduler\/schedules\]\n; Services to be checked\nhost_check = check_ok\ncpu = check_cpu warn=load>80 crit=load>95\nmem = check_memory\n/,
    );
    assert.match(
      r.stdout,
      /\[\/settings\/scheduler\/schedules\/disk_root\]\nalias = Disk \/\ncommand = check_drivesize drive=\/ warn=used>80% crit=used>90%\ninterval = 5m\nreport = warning,critical,unknown\n\n/,
    );
    assert.match(r.stdout, /\[\/settings\/NSCA\/client\]\nchannel = NSCA\nhostname = auto-lc\n/);
    assert.match(
      r.stdout,
      /\[\/settings\/NSCA\/client\/targets\/default\]\naddress = nagios\.example\.com:5667\nencryption = aes256\n/,
    );
    for (const [line, what] of [
      [31, '[/settings/scheduler/schedules/disk_root] schedule: dropped: not supported: cron-like schedules'],
      [32, '[/settings/scheduler/schedules/disk_root] run on startup: dropped'],
      [36, '[/settings/NSCA/client] hostname: changed: ${host_lc} became auto-lc'],
      [
        40,
        '[/settings/NSCA/client/targets/default] address: changed: nsca://nagios.example.com:5667 became nagios.example.com:5667',
      ],
      [45, '[/settings/NSCA/client/targets/default] use ssl: dropped: not supported: nsca 2.x speaks plain TCP'],
    ] as const)
      assert.ok(r.stderr.includes(`${src}:${line}: ${what}`), `${line}: ${r.stderr}`);
    assert.match(r.stderr, /the result validates/);
  });

  void it('passive checks: an encryption no nsca daemon shares with us, and a hostname expression, are dropped with the reason; an inline ";" is pointed out', async () => {
    const src = join(dir, 'nsca-odd.ini');
    writeFileSync(
      src,
      '[/modules]\nNSCAClient = enabled\n\n[/settings/NSCA/client]\nhostname = win_${host}\n\n[/settings/NSCA/client/targets/default]\naddress = 10.0.0.1 ;;; the Nagios server\nencryption = blowfish\n',
    );
    const r = await agent(['settings', 'import', src]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stderr.includes(`${src}:5: [/settings/NSCA/client] hostname: dropped: win_\${host}: only`), r.stderr);
    assert.ok(
      r.stderr.includes(
        `${src}:9: [/settings/NSCA/client/targets/default] encryption: dropped: encryption blowfish: not supported here: use aes (nsca decryption_method 14`,
      ),
      r.stderr,
    );
    assert.ok(
      r.stderr.includes(
        `${src}:8: [/settings/NSCA/client/targets/default] address: note: kept as written: " ;…" is part of the value`,
      ),
      r.stderr,
    );
  });

  void it('usage: an existing --output needs --force; an unreadable input is exit 2', async () => {
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
