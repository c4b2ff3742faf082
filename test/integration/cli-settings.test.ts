/**
 * The settings commands as a user runs them: `config-agent settings validate`
 * (formats, exit codes, --strict), `show` (origins, redaction, --resolved),
 * `schema`, `plan`, and `config-agent query`, each as a real process.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { MAIN } from '../helpers/agent-process.js';
import { inRange } from '../../src/in-range.js';

let dir = '';
const VALID = `[/modules]
CheckHelpers = enabled

[/settings/default]
; shared secret
password = s3cr;et#1

[/settings/remote/client/targets/base]
is template = 1
timeout = 9

[/settings/remote/client/targets/box]
parent = base
address = 192.0.2.10:5666
`;
const INVALID = `[/modules]
CheckHelpres = enabled

[/settings/WEB/server]
port = eighty
`;
const WARNS = `[/modules]
WEBServer = enabled
`;

function agent(args: string[], env: Record<string, string> = {}): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, AGENT_LOG_LEVEL: 'error', ...env },
    timeout: 30_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-cli-'));
  writeFileSync(join(dir, 'valid.ini'), VALID);
  writeFileSync(join(dir, 'invalid.ini'), INVALID);
  writeFileSync(join(dir, 'warns.ini'), WARNS);
  writeFileSync(
    join(dir, 'next.ini'),
    VALID.replace('timeout = 9', 'timeout = 10').replace(
      'CheckHelpers = enabled',
      'CheckHelpers = enabled\nRemoteClient = enabled',
    ),
  );
});
after(() => rmSync(dir, { recursive: true, force: true }));

void test('validate: valid file exits 0, invalid exits 1 with every problem at file:line:col', () => {
  const ok = agent(['settings', 'validate', 'valid.ini']);
  assert.equal(ok.code, 0, ok.out + ok.err);
  assert.match(ok.out, /valid\.ini: valid/);
  const bad = agent(['settings', 'validate', 'invalid.ini']);
  assert.equal(bad.code, 1);
  assert.match(bad.out, /invalid\.ini:2:1: error AGENT_ERR_MODULE_UNKNOWN .*did you mean "CheckHelpers"/);
  assert.match(bad.out, /invalid\.ini:5:8: error AGENT_ERR_VALUE_INVALID \[\/settings\/WEB\/server\]/);
});

void test('validate: several files, json format is parseable and complete', () => {
  const r = agent(['settings', 'validate', 'valid.ini', 'invalid.ini', '--format', 'json']);
  assert.equal(r.code, 1);
  const report = JSON.parse(r.out) as {
    valid: boolean;
    files: { file: string; valid: boolean; errors: { code: string; line: number; col: number }[] }[];
  };
  assert.equal(report.valid, false);
  assert.deepEqual(
    report.files.map((f) => f.valid),
    [true, false],
  );
  assert.deepEqual(
    report.files[1]?.errors.map((e) => `${e.code}@${e.line}`),
    ['AGENT_ERR_MODULE_UNKNOWN@2', 'AGENT_ERR_VALUE_INVALID@5'],
  );
});

void test('validate: github format prints workflow annotations', () => {
  const r = agent(['settings', 'validate', 'invalid.ini', '--format', 'github']);
  assert.equal(r.code, 1);
  const lines = r.out.trim().split('\n');
  assert.equal(lines.length, 2);
  assert.match(
    inRange(lines, 0),
    /^::error file=.*invalid\.ini,line=2,col=1,title=AGENT_ERR_MODULE_UNKNOWN::unknown module/,
  );
});

void test('validate: warnings pass, fail with --strict; usage and unreadable files exit 2', () => {
  assert.equal(agent(['settings', 'validate', 'warns.ini']).code, 0);
  const strict = agent(['settings', 'validate', 'warns.ini', '--strict']);
  assert.equal(strict.code, 1);
  assert.match(strict.out, /AGENT_WARN_EMPTY_PASSWORD/);
  assert.equal(agent(['settings', 'validate', 'missing.ini']).code, 2);
  assert.equal(agent(['settings', 'validate', '--format', 'xml', 'valid.ini']).code, 2);
  const unknown = agent(['settings', 'validate', '--stirct']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /did you mean "strict"/);
});

void test('validate uses AGENT_SETTINGS when no file is given', () => {
  assert.equal(agent(['settings', 'validate'], { AGENT_SETTINGS: join(dir, 'invalid.ini') }).code, 1);
});

void test('show: effective values with origins, secrets redacted, --resolved objects, --json', () => {
  const r = agent(['settings', 'show', 'valid.ini']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /\[\/settings\/default\]\npassword = \*\*\*\*\*\*\s+; valid\.ini:6/);
  assert.doesNotMatch(r.out, /s3cr;et/);
  assert.match(r.out, /allowed hosts = 127\.0\.0\.1\s+; default/);
  const resolved = agent([
    'settings',
    'show',
    'valid.ini',
    '--resolved',
    '--section',
    '/settings/remote/client/targets/box',
  ]);
  assert.match(resolved.out, /timeout = 9\s+; object base, valid\.ini:10/);
  assert.match(resolved.out, /address = 192\.0\.2\.10:5666\s+; object box, valid\.ini:14/);
  const none = agent(['settings', 'show', 'valid.ini', '--section', '/settings/WEB/srever']);
  assert.equal(none.code, 2);
  assert.match(none.err, /no section matches.*did you mean "\/settings\/WEB\/server"/);
  const described = agent(['settings', 'show', 'valid.ini', '--describe', '--section', '/settings/default']);
  assert.match(
    described.out,
    /; Comma-separated client addresses allowed to connect[^\n]*\nallowed hosts = 127\.0\.0\.1/,
  );
  const json = JSON.parse(agent(['settings', 'show', 'valid.ini', '--json']).out) as {
    sections: Record<string, Record<string, { value: unknown; origin: string }>>;
  };
  assert.equal(json.sections['/settings/default']?.password?.value, '******');
  assert.equal(json.sections['/modules']?.CheckHelpers?.value, true);
});

void test('schema: one combined schema that validates a settings object', () => {
  const r = agent(['settings', 'schema']);
  assert.equal(r.code, 0);
  const schema = JSON.parse(r.out) as Record<string, unknown>;
  const ajv = new Ajv({ strict: false });
  const validate = ajv.compile(schema);
  assert.equal(
    validate({ '/settings/WEB/server': { port: '8443s' }, '/settings/remote/client/targets/x.y': { timeout: 5 } }),
    true,
  );
  assert.equal(validate({ '/settings/nope': {} }), false);
});

void test('plan: module by module from one file to another', () => {
  const r = agent(['settings', 'plan', 'valid.ini', 'next.ini']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /RemoteClient\s+load/);
  assert.match(r.out, /CheckHelpers\s+unchanged/);
  assert.equal(agent(['settings', 'plan', 'valid.ini']).code, 2);
  assert.equal(agent(['settings', 'plan', 'valid.ini', 'invalid.ini']).code, 1);
});

void test('plan: the same file in another folder (a checkout against the deployed file) changes nothing', () => {
  // Paths built on ${base-path} (the web certificate, the state folder) mean OLD's folder once NEW replaces it.
  const web = `[/modules]\nWEBServer = enabled\n[/settings/default]\npassword = x\n[/settings/WEB/server]\ncertificate = \${certificate-path}/web.pem\n`;
  mkdirSync(join(dir, 'deployed'), { recursive: true });
  mkdirSync(join(dir, 'checkout'), { recursive: true });
  writeFileSync(join(dir, 'deployed', 'agent.ini'), web);
  writeFileSync(join(dir, 'checkout', 'agent.ini'), web);
  const same = agent(['settings', 'plan', 'deployed/agent.ini', 'checkout/agent.ini']);
  assert.equal(same.code, 0, same.err);
  assert.doesNotMatch(same.out, /apply|restart|load |unload/, same.out);
  assert.match(same.out, /WEBServer\s+unchanged/);
  // A real change still shows, named at NEW's line.
  writeFileSync(join(dir, 'checkout', 'agent.ini'), `${web}port = 9443s\n`);
  const changed = agent(['settings', 'plan', 'deployed/agent.ini', 'checkout/agent.ini']);
  assert.match(
    changed.out,
    /WEBServer\s+(apply|restart)\s+changed: \[\/settings\/WEB\/server\] port \(agent\.ini:7\)$/m,
  );
  assert.doesNotMatch(changed.out, /certificate|base-path|\[\/paths/);
});

void test('set: one key with the smallest edit, refused (nothing written) when the result would not validate, removed with --remove', () => {
  writeFileSync(join(dir, 'set.ini'), VALID);
  const set = agent([
    'settings',
    'set',
    '--settings',
    'set.ini',
    '--path',
    '/settings/remote/client/targets/box',
    '--key',
    'timeout',
    '--value',
    '7',
  ]);
  assert.equal(set.code, 0, set.err);
  assert.match(set.out, /\[\/settings\/remote\/client\/targets\/box\] timeout = 7: written to .*set\.ini/);
  assert.equal(
    readFileSync(join(dir, 'set.ini'), 'utf8'),
    VALID.replace('address = 192.0.2.10:5666\n', 'address = 192.0.2.10:5666\ntimeout = 7\n'),
  );
  const bad = agent([
    'settings',
    'set',
    '--settings',
    'set.ini',
    '--path',
    '/settings/WEB/server',
    '--key',
    'port',
    '--set',
    'eighty',
  ]);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /set\.ini:\d+:\d+: error AGENT_ERR_VALUE_INVALID \[\/settings\/WEB\/server\] port/);
  assert.match(bad.err, /nothing written/);
  assert.doesNotMatch(readFileSync(join(dir, 'set.ini'), 'utf8'), /eighty/);
  const removed = agent([
    'settings',
    'set',
    '--settings',
    'set.ini',
    '--path',
    '/settings/remote/client/targets/box',
    '--key',
    'timeout',
    '--remove',
  ]);
  assert.equal(removed.code, 0, removed.err);
  assert.equal(readFileSync(join(dir, 'set.ini'), 'utf8'), VALID);
  assert.equal(agent(['settings', 'set', '--settings', 'set.ini', '--path', '/x']).code, 2);
});

void test('query: Nagios form and the status as exit code', () => {
  const ok = agent(['query', '--settings', 'valid.ini', 'check_ok', 'all', 'good']);
  assert.equal(ok.code, 0);
  assert.equal(ok.out.trim(), 'all good');
  assert.equal(agent(['query', '--settings', 'valid.ini', 'check_warning']).code, 1);
  assert.equal(agent(['query', '--settings', 'valid.ini', 'check_critical']).code, 2);
  const after = agent(['query', 'check_critical', 'late', '--settings', 'valid.ini'], {
    AGENT_SETTINGS: join(dir, 'invalid.ini'),
  });
  assert.equal(after.code, 2, '--settings after the query name is still the settings option');
  assert.equal(after.out.trim(), 'late');
  const unknown = agent(['query', '--settings', 'valid.ini', 'check_nothing']);
  assert.equal(unknown.code, 3);
  assert.equal(unknown.out.trim(), 'Unknown command(s): check_nothing');
});

void test('--help works everywhere and bad commands are usage errors', () => {
  for (const args of [
    ['--help'],
    ['run', '--help'],
    ['query', '--help'],
    ['settings', 'validate', '--help'],
    ['settings', 'show', '--help'],
    ['settings', 'schema', '--help'],
    ['settings', 'plan', '--help'],
  ]) {
    const r = agent(args);
    assert.equal(r.code, 0, args.join(' '));
    assert.match(r.out, /Usage: config-agent/);
  }
  assert.equal(agent(['frobnicate']).code, 2);
  assert.equal(agent(['settings', 'frobnicate']).code, 2);
});
