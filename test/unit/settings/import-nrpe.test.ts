/**
 * `config-agent settings import` of nrpe.cfg files (test/fixtures/nrpe/): told
 * apart from nsclient.ini by content, includes followed, and every line of
 * every file read accounted for (kept, changed, dropped, blank or comment),
 * counted against the files themselves.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { importNsclient } from '../../../src/settings/import/import.js';
import { looksLikeNrpeCfg } from '../../../src/settings/store/nrpe-cfg-read.js';
import { REPO } from '../../helpers/agent-process.js';

const FIXTURES = join(REPO, 'test/fixtures/nrpe');

/** Physical lines of a file as an editor counts them. */
const linesOf = (file: string): number => {
  const text = readFileSync(file, 'utf8');
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
};
/** The .cfg files nrpe's include_dir reads under a folder. */
const cfgUnder = (dir: string): string[] =>
  readdirSync(dir)
    .sort()
    .flatMap((n) =>
      statSync(join(dir, n)).isDirectory() ? cfgUnder(join(dir, n)) : n.endsWith('.cfg') ? [join(dir, n)] : [],
    );

function load(fixture: string) {
  const file = join(FIXTURES, fixture, 'nrpe.cfg');
  return { file, r: importNsclient(readFileSync(file, 'utf8'), file, join(FIXTURES, fixture, 'agent.ini')) };
}

for (const fixture of ['debian-default', 'ansible-role', 'ssl-options']) {
  void test(`${fixture}: every line read is kept, changed, dropped, or blank or comment, and the totals match the files`, () => {
    const { r } = load(fixture);
    assert.equal(r.source, 'nrpe');
    const t = r.totals!;
    const dir = join(FIXTURES, fixture);
    const files = [
      join(dir, 'nrpe.cfg'),
      ...(fixture === 'debian-default'
        ? [join(dir, 'nrpe_local.cfg'), ...cfgUnder(join(dir, 'nrpe.d'))]
        : fixture === 'ansible-role'
          ? cfgUnder(join(dir, 'nrpe.d'))
          : []),
    ];
    assert.equal(t.files, files.length);
    assert.equal(
      t.lines,
      files.reduce((n, f) => n + linesOf(f), 0),
    );
    assert.equal(t.unaccounted, 0);
    assert.equal(t.kept + t.changed + t.dropped + t.blank, t.lines);
    const reported = new Set(r.changes.filter((c) => c.action !== 'note').map((c) => `${c.file ?? ''}:${c.line}`));
    assert.equal(reported.size, t.kept + t.changed + t.dropped, 'one report line per setting line');
  });
}

void test('debian-default: include and include_dir followed at each load through [/includes] (only *.cfg), commands become NRPE commands', () => {
  const { r } = load('debian-default');
  assert.equal(r.valid, true, JSON.stringify(r.problems));
  assert.match(r.text, /\[\/modules\]\nRemoteServer = enabled\nCheckExternalScripts = enabled\n/);
  assert.match(r.text, /^unknown command = nrpe$/m);
  assert.match(
    r.text,
    /\[\/includes\]\nnrpe nrpe_local\.cfg = \/.*\/nrpe_local\.cfg\nnrpe nrpe\.d = \/.*\/nrpe\.d\/\*\.cfg\n/,
  );
  assert.match(r.text, /\[\/settings\/external scripts\/nrpe commands\]\n/);
  assert.match(r.text, /^check_users = \/usr\/lib\/nagios\/plugins\/check_users -w 5 -c 10$/m);
  assert.doesNotMatch(r.text, /^check_root = /m, 'read from nrpe_local.cfg at each load, not copied');
  assert.doesNotMatch(r.text, /never/, 'nrpe.d/README is not a .cfg file');
  assert.match(
    r.text,
    /^allowed queries = check_users, check_load, check_hda1, check_zombie_procs, check_total_procs, check_root, check_swap, check_dummy_warn$/m,
  );
  assert.match(r.text, /^allow arguments = false$/m);
  const why = (key: string) => r.changes.find((c) => c.key === key);
  assert.equal(why('nrpe_user')?.action, 'dropped');
  assert.match(why('pid_file')!.detail, /systemd/);
  assert.equal(why('allow_bash_command_substitution')?.action, 'kept');
  assert.equal(why('include_dir')?.action, 'kept');
  assert.match(why('include_dir')!.detail, /at each load/);
  assert.match(r.changes.find((c) => c.key === 'command[check_root]')!.detail, /at each load/);
});

void test('ansible-role: arguments as dont_blame_nrpe says, a redefined command reported, shell syntax through /bin/sh, host names reported', () => {
  const { r } = load('ansible-role');
  assert.equal(r.valid, true, JSON.stringify(r.problems));
  assert.match(r.text, /\[\/settings\/remote\/server\][^[]*allow arguments = true/);
  assert.match(r.text, /\[\/settings\/external scripts\]\ntimeout = 30\nallow arguments = true\n/);
  assert.match(
    r.text,
    /^check_load = \/usr\/lib\/nagios\/plugins\/check_load -r -w \$ARG1\$ -c \$ARG2\$$/m,
    'the later definition wins, as in nrpe',
  );
  const dup = r.changes.find((c) => c.key === 'command[check_load]' && c.action === 'dropped');
  assert.match(dup!.detail, /set again at .*nrpe\.cfg:\d+, which wins/);
  assert.match(
    r.text,
    /^check_passwd_lines = \/usr\/bin\/wc -l \/etc\/passwd \| \/usr\/bin\/head -n 1 > \/dev\/stdout$/m,
    'written as nrpe ran it: /bin/sh -c runs the line',
  );
  assert.doesNotMatch(r.text, /^check_exit_9 = /m, 'read from nrpe.d at each load');
  assert.match(r.text, /^nrpe nrpe\.d = \/.*\/nrpe\.d\/\*\.cfg$/m);
  assert.match(r.changes.find((c) => c.key === 'allowed_hosts')!.detail, /icinga-master\.example\.com/);
  const site = r.changes.find((c) => c.key === 'command[check_critical_always]');
  assert.match(site!.file!, /nrpe\.d\/extra\/site\.cfg$/);
  assert.equal(site!.line, 2);
});

void test('ssl-options: certificates kept (valid only once the files exist), ssl_use_adh=0 on the cipher list, command_prefix, broken lines', () => {
  const { r } = load('ssl-options');
  assert.equal(
    r.valid,
    false,
    'config-agent settings validate would fail: the certificate files are not on this machine',
  );
  assert.equal(r.writable, true);
  assert.ok(
    r.problems.some((p) => /web01\.example\.com\.pem/.test(p.message)),
    JSON.stringify(r.problems),
  );
  assert.match(r.text, /^allowed ciphers = ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-AES128-GCM-SHA256:!ADH$/m);
  assert.match(r.text, /^verify mode = peer-cert$/m);
  assert.match(
    r.text,
    /^port = 5666$/m,
    'nrpe stops reading at the line it refuses: the later server_port is not read',
  );
  assert.match(r.text, /^check_apt = \/usr\/bin\/sudo \/usr\/lib\/nagios\/plugins\/check_apt$/m);
  assert.equal(r.changes.find((c) => c.key === 'this line has no equals sign')?.action, 'dropped');
  assert.match(r.changes.find((c) => c.key === 'unknown_option=1')!.detail, /not read: nrpe stopped reading/);
  assert.equal(r.changes.find((c) => c.key === 'server_port' && c.line === 2)?.action, 'kept');
  assert.deepEqual(r.sudoers, [
    'config-agent ALL=(root) NOPASSWD: /usr/lib/nagios/plugins/check_apt, /usr/lib/nagios/plugins/check_mailq',
  ]);
});

void test('detection by content: nsclient.ini files are not nrpe.cfg, nrpe.cfg files are', () => {
  assert.equal(looksLikeNrpeCfg('[/modules]\nCheckSystem = enabled\n'), false);
  assert.equal(looksLikeNrpeCfg('; nothing\n[/settings/NRPE/server]\nallowed_hosts=1.2.3.4\n'), false);
  assert.equal(looksLikeNrpeCfg('# a comment\ncommand[x]=/bin/true\n'), true);
  assert.equal(looksLikeNrpeCfg('server_port=5666\n'), true);
  for (const f of readdirSync(join(REPO, 'test/fixtures/nsclient'))) {
    if (f.endsWith('.ini'))
      assert.equal(looksLikeNrpeCfg(readFileSync(join(REPO, 'test/fixtures/nsclient', f), 'utf8')), false, f);
  }
});

void test('commands whose names differ only in case: the later one wins, reported as such', () => {
  const r = importNsclient(
    'command[check_A]=/bin/true\ncommand[check_a]=/bin/false\n',
    '/etc/nagios/nrpe.cfg',
    '/etc/config-agent/agent.ini',
  );
  assert.equal(r.valid, true, JSON.stringify(r.problems));
  assert.match(r.text, /^check_a = \/bin\/false$/m);
  assert.doesNotMatch(r.text, /^check_A = /m);
  assert.match(r.changes.find((c) => c.key === 'command[check_A]')!.detail, /differ only in case/);
});

void test('lines as nrpe 4.1 reads them: blanks around = of a command, a spaced option ignored, a name holding debug, macros', () => {
  const r = importNsclient(
    'command[check_a] = /bin/echo a\nserver_port = 9999\ncommand[check_b]=  /bin/echo b # not a comment\nmy_debug_x=1\n',
    '/etc/nagios/nrpe.cfg',
    '/etc/config-agent/agent.ini',
  );
  assert.equal(r.valid, true, JSON.stringify(r.problems));
  assert.match(r.text, /^check_a = \/bin\/echo a$/m);
  assert.match(r.text, /^check_b = \/bin\/echo b # not a comment$/m);
  assert.doesNotMatch(r.text, /^port = 9999$/m);
  assert.match(r.changes.find((c) => c.key === 'server_port ')!.detail, /Unknown option/);
  assert.match(r.text, /^level = debug$/m, 'nrpe takes any name holding "debug" for debug');
});
