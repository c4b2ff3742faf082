/**
 * `config-agent settings import` of nsclient.ini files: every line accounted for
 * (totals counted against the file), duplicates and Windows-only items
 * reported, values that would change meaning translated, a damaged allowed
 * hosts list never wider, control characters escaped in the report, a
 * 0.3.x NSC.ini refused with exit 2 (its time against the file's size: test/bench/import.bench.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { formatChanges, importNsclient } from '../../../src/settings/import/import.js';
import { REPO } from '../../helpers/agent-process.js';
import { runAgentCli } from '../../helpers/run-cli.js';

const NSCLIENT = join(REPO, 'test/fixtures/nsclient');
const run = (text: string) => importNsclient(text, '/etc/nsclient/nsclient.ini', '/etc/config-agent/agent.ini');

for (const name of readdirSync(NSCLIENT).filter((f) => f.endsWith('.ini'))) {
  void test(`${name}: the totals match the file and every setting line has one fate`, () => {
    const file = join(NSCLIENT, name);
    const text = readFileSync(file, 'utf8');
    const r = importNsclient(text, file, '/tmp/agent.ini');
    const t = r.totals!;
    const physical = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    assert.equal(t.lines, physical);
    assert.equal(t.unaccounted, 0, JSON.stringify(t));
    assert.equal(t.kept + t.changed + t.dropped + t.blank, t.lines);
    const settingLines = text.split('\n').filter((l) => l.trim() !== '' && !/^\s*[;#]/.test(l)).length;
    assert.equal(t.kept + t.changed + t.dropped, settingLines);
  });
}

void test('a key written twice is reported (the later one wins, as in NSClient++), and so is a key above the first section', () => {
  const r = run('orphan = 1\n[/settings/external scripts/alias]\nalias_x = check_ok one\nalias_x = check_ok two\n');
  assert.match(r.text, /^alias_x = check_ok two$/m);
  const dup = r.changes.find((c) => c.key === 'alias_x' && c.action === 'dropped');
  assert.equal(dup?.line, 3);
  assert.match(dup.detail, /set again at line 4, which wins/);
  assert.equal(r.changes.find((c) => c.key === 'orphan')?.action, 'dropped');
});

void test('Windows-only scripts and modules are left out and counted in a section of their own', () => {
  const text = [
    '[/modules]',
    'CheckEventLog = enabled',
    'CheckWMI = enabled',
    'CheckExternalScripts = enabled',
    '[/settings/external scripts/scripts]',
    'a = cmd /c echo hi',
    'b = scripts\\check_b.ps1',
    'c = cscript.exe //nologo scripts\\c.vbs',
    'd = scripts\\d.bat',
    'e = powershell.exe -File x.ps1',
    'f = check_f.sh',
    '[/settings/external scripts/scripts/g]',
    'command = C:\\tools\\g.exe',
  ].join('\n');
  const r = run(text);
  assert.deepEqual(r.windowsOnly.map((w) => w.kind).sort(), [
    '.bat',
    '.exe',
    '.ps1',
    'cmd',
    'cscript',
    'module',
    'module',
    'powershell',
  ]);
  assert.match(r.text, /^f = check_f\.sh$/m);
  assert.doesNotMatch(r.text, /^[abcdeg] = /m);
  const report = formatChanges(r, 'nsclient.ini');
  assert.ok(
    report.some((l) =>
      /^Windows-only, not carried over \(8: module 2, cmd 1, \.ps1 1, cscript 1, \.bat 1, powershell 1, \.exe 1\): /.test(
        l,
      ),
    ),
    report.join('\n'),
  );
});

void test('path variables with Windows separators, check placeholders and Windows paths', () => {
  const r = run(
    [
      '[/modules]',
      'RemoteServer = enabled',
      'CheckSystem = enabled',
      'CheckExternalScripts = enabled',
      '[/settings/NRPE/server]',
      'certificate = ${shared-path}\\security\\server.pem',
      'ca = C:\\certs\\ca.pem',
      '[/settings/external scripts/alias]',
      'alias_cpu_list = check_cpu "top-syntax=${status}: ${list}" show-all',
    ].join('\n'),
  );
  assert.match(r.text, /^certificate = \$\{base-path\}\/security\/server\.pem$/m);
  assert.match(r.text, /^alias_cpu_list = check_cpu "top-syntax=%\(status\): %\(list\)" show-all$/m);
  assert.doesNotMatch(r.text, /^ca = /m);
  assert.match(r.changes.find((c) => c.key === 'ca')!.detail, /Windows path C:\\certs\\ca\.pem/);
});

void test('insecure = true changes only defaults: given certificate and ciphers are kept; [/settings/default] timeout reaches the NRPE server', () => {
  const r = run(
    [
      '[/modules]',
      'NRPEServer = enabled',
      '[/settings/default]',
      'timeout = 45',
      '[/settings/NRPE/server]',
      'insecure = true',
      'allowed ciphers = ALL:!MD5:@SECLEVEL=0',
    ].join('\n'),
  );
  assert.match(r.text, /\[\/settings\/remote\/server\]\nallowed ciphers = ALL:!MD5:@SECLEVEL=0\ntimeout = 45\n/);
  assert.match(r.changes.find((c) => c.key === 'insecure')!.detail, /changes NSClient\+\+'s defaults/);
});

void test('a damaged allowed hosts list (control characters) is written empty, never wider; the report escapes control characters', () => {
  for (const value of ['10.0.0.1\u00000.0.0.0/0', '10.0.0.1,\u0000,0.0.0.0/0', '192.168.1.1\u0000/0']) {
    const r = run(`[/modules]\nNRPEServer = enabled\n[/settings/default]\nallowed hosts = ${value}\n`);
    assert.match(r.text, /^allowed hosts = $/m, JSON.stringify(value));
    const report = formatChanges(r, 'nsclient.ini').join('\n');
    // eslint-disable-next-line no-control-regex -- the report must hold none
    assert.doesNotMatch(report, /[\u0000-\u0008\u000b-\u001f]/);
  }
  const r = run('[/settings/external scripts/alias]\nbad\u001b[31m = check_ok\n');
  assert.ok(formatChanges(r, 'x.ini').some((l) => l.includes('\\x1b[31m')));
});

void test('an NSClient++ 0.3.x NSC.ini is refused with exit 2 and says what to do', async () => {
  const r = await runAgentCli(['settings', 'import', join(REPO, 'test/fixtures/nsclient-0.3/NSC.ini')]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /NSClient\+\+ 0\.3\.x NSC\.ini .*nscp settings --migrate-to ini/);
  assert.equal(r.stdout, '');
});

void test('[/includes] files are imported and merged: their lines reported under their own names, the main file wins, a missing one noted', () => {
  const file = join(REPO, 'test/fixtures/nsclient-includes/nsclient.ini');
  const r = importNsclient(readFileSync(file, 'utf8'), file, '/tmp/agent.ini');
  assert.equal(r.valid, true, JSON.stringify(r.problems));
  assert.match(r.text, /^allowed hosts = 127\.0\.0\.1,10\.1\.0\.0\/16$/m);
  assert.doesNotMatch(r.text, /0\.0\.0\.0\/0/, 'an include never widens what the main file allows');
  assert.match(r.text, /\[\/settings\/remote\/server\]\nport = 5666\nallow arguments = true\n/);
  assert.match(r.text, /^alias_disk = CheckDriveSize MinWarnFree=10% MinCritFree=5% CheckAll FilterType=FIXED$/m);
  assert.match(r.text, /^check_apt = \/usr\/lib\/nagios\/plugins\/check_apt$/m);
  const nrpe = join(REPO, 'test/fixtures/nsclient-includes/conf.d/nrpe.ini');
  const widened = r.changes.find((c) => c.file === nrpe && c.key === 'allowed hosts');
  assert.equal(widened?.action, 'dropped');
  assert.match(r.changes.find((c) => c.key === 'conf.d/not-there.ini')!.detail, /not imported: ENOENT/);
  assert.deepEqual(
    r.windowsOnly.map((w) => w.kind),
    ['.ps1'],
  );
  const t = r.totals!;
  assert.equal(t.files, 3);
  assert.equal(t.unaccounted, 0);
  assert.equal(t.kept + t.changed + t.dropped + t.blank, t.lines);
});
