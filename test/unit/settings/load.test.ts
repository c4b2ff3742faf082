/**
 * The settings loader end to end on one fixture per scenario: every error
 * kind with its code and position, warnings for insecure choices,
 * inheritance chains, one-liners, variables, users and roles.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSettingsText } from '../../../src/settings/model/load.js';
import { loadSettingsFile } from '../../../src/settings/store/load-file.js';
import type { SettingsProblem } from '../../../src/settings/model/problem.js';
import { inRange } from '../../../src/in-range.js';

const FIXTURES = join(fileURLToPath(new URL('.', import.meta.url)), '../../../../test/fixtures/settings');
const fixture = (name: string): string => join(FIXTURES, name);

function codesAt(list: SettingsProblem[]): string[] {
  return list.map((p) => `${p.code}@${p.line}:${p.col}`);
}

const errorCases: { file: string; expect: string[]; mention?: RegExp }[] = [
  {
    file: 'unknown-section.ini',
    expect: ['AGENT_ERR_SECTION_UNKNOWN@4:2'],
    mention: /did you mean "\/settings\/WEB\/server"/,
  },
  { file: 'unknown-key.ini', expect: ['AGENT_ERR_KEY_UNKNOWN@2:1'], mention: /did you mean "port"/ },
  { file: 'unknown-module.ini', expect: ['AGENT_ERR_MODULE_UNKNOWN@2:1'], mention: /did you mean "CheckHelpers"/ },
  {
    file: 'bad-types.ini',
    expect: ['AGENT_ERR_VALUE_TYPE@2:16', 'AGENT_ERR_VALUE_TYPE@5:11', 'AGENT_ERR_VALUE_TYPE@6:11'],
  },
  {
    file: 'bad-values.ini',
    expect: ['AGENT_ERR_VALUE_INVALID@2:8', 'AGENT_ERR_VALUE_INVALID@5:15', 'AGENT_ERR_VALUE_INVALID@6:18'],
    mention: /must be one of: none/,
  },
  { file: 'unknown-variable.ini', expect: ['AGENT_ERR_VARIABLE_UNKNOWN@2:15', 'AGENT_ERR_VARIABLE_UNTERMINATED@3:19'] },
  { file: 'object-cycle.ini', expect: ['AGENT_ERR_OBJECT_CYCLE@8:10'], mention: /a -> b -> c -> a/ },
  { file: 'object-unknown-parent.ini', expect: ['AGENT_ERR_OBJECT_PARENT_UNKNOWN@2:10'], mention: /nowhere/ },
  { file: 'duplicate-key.ini', expect: [] },
  { file: 'syntax-error.ini', expect: [] },
];

for (const c of errorCases) {
  void test(`invalid: ${c.file}`, async () => {
    const r = await loadSettingsFile(fixture(c.file));
    assert.equal(r.ok, false, `${c.file} should be invalid`);
    if (c.expect.length > 0) assert.deepEqual(codesAt(r.problems), c.expect);
    for (const p of r.problems) {
      assert.equal(p.file, fixture(c.file));
      assert.equal(p.severity, 'error');
      assert.ok(p.line > 0, `${p.code} has a line`);
    }
    if (c.mention) assert.match(r.problems.map((p) => p.message).join('\n'), c.mention);
  });
}

void test('every problem of a file is reported at once', async () => {
  const text = readFileSync(fixture('bad-types.ini'), 'utf8') + readFileSync(fixture('unknown-key.ini'), 'utf8');
  const r = loadSettingsText(text, '/tmp/t/agent.ini');
  assert.equal(r.ok, false);
  assert.equal(r.problems.length, 4);
});

void test('unreadable file is a problem, not a throw', async () => {
  const r = await loadSettingsFile('/nonexistent/agent.ini');
  assert.equal(r.ok, false);
  assert.equal(r.problems[0]?.code, 'AGENT_ERR_SETTINGS_UNREADABLE');
});

void test('inheritance: child wins, chains are followed, defaults last, templates hidden', async () => {
  const r = await loadSettingsFile(fixture('inheritance.ini'));
  assert.ok(r.ok, JSON.stringify(!r.ok && r.problems));
  const t = r.snapshot.targets.remote;
  const leaf = t.get('leaf');
  assert.ok(leaf);
  const table: [string, unknown, string | undefined][] = [
    ['payload length', 4096, 'leaf'],
    ['timeout', 7, 'mid'],
    ['verify mode', 'peer-cert', 'base'],
    ['allowed ciphers', 'ALL:!ADH', 'default'],
    ['address', '10.1.2.3:5667', 'leaf'],
    ['use ssl', true, undefined],
    ['certificate format', 'PEM', undefined],
  ];
  for (const [key, value, from] of table) {
    assert.deepEqual(leaf.values[key], value, key);
    assert.equal(leaf.origins[key]?.object, from, `origin of ${key}`);
  }
  assert.deepEqual(leaf.chain, ['leaf', 'mid', 'base', 'default']);
  assert.equal(leaf.isTemplate, false);
  assert.equal(t.get('base')?.isTemplate, true);
  assert.equal(t.get('default')?.isTemplate, true);
  assert.equal(t.get('sample')?.isTemplate, true);
  assert.equal(t.get('sample')?.values.timeout, 20, 'sample inherits from default');
  assert.equal(t.get('mid')?.values['is template'], false, 'is template is not inherited');
  // One-liners: value becomes address, parent default.
  assert.equal(t.get('quick')?.values.address, '192.0.2.1:5666');
  assert.equal(t.get('quick')?.values.timeout, 20);
  assert.equal(t.get('web.example.com')?.values.address, '192.0.2.2');
  // The config-agent client's targets are separate and have no payload length.
  assert.equal(r.snapshot.targets.agent.get('default')?.values['payload length'], undefined);
  assert.equal(r.snapshot.targets.remote.get('default')?.values['payload length'], 1024);
});

void test('users, roles, fallback and the built-in legacy role', async () => {
  const r = await loadSettingsFile(fixture('users-roles.ini'));
  assert.ok(r.ok, JSON.stringify(!r.ok && r.problems));
  const s = r.snapshot;
  assert.equal(s.users.get('alice')?.values.role, 'viewer');
  assert.equal(s.users.get('alice')?.origins.role?.object, 'base');
  assert.equal(s.users.get('base')?.isTemplate, true);
  assert.equal(s.users.get('carol')?.values.password, 'carolpw');
  assert.deepEqual(s.roles.get('ops'), ['modules.*', 'info.get']);
  assert.deepEqual(s.roles.get('legacy'), ['*']);
  assert.equal(s.sections['/settings/WEB/server']?.['allowed hosts'], '127.0.0.1, 10.0.*.*');
  assert.equal(s.sections['/settings/WEB/server'].password, undefined, 'no own password: falls back');
  assert.equal(s.sections['/settings/default']?.password, 'rootpw');
  assert.ok(r.warnings.some((w) => w.code === 'AGENT_WARN_PLAIN_PASSWORD'));
});

void test('insecure but legal choices are warnings with codes', async () => {
  const r = await loadSettingsFile(fixture('insecure.ini'));
  assert.ok(r.ok, JSON.stringify(!r.ok && r.problems));
  const codes = new Set(r.warnings.map((w) => w.code));
  for (const code of [
    'AGENT_WARN_ADH_CIPHERS',
    'AGENT_WARN_VERIFY_NONE',
    'AGENT_WARN_EMPTY_PASSWORD',
    'AGENT_WARN_ALLOWED_HOSTS_OPEN',
    'AGENT_WARN_NO_CA',
    'AGENT_WARN_PLAIN_PASSWORD',
    'AGENT_WARN_ROLE_UNKNOWN',
  ]) {
    assert.ok(codes.has(code), `missing ${code} in ${[...codes].join(', ')}`);
  }
  for (const w of r.warnings) assert.equal(w.severity, 'warning');
});

void test('NSClientServer without a password (own or [/settings/default]) warns at the line that enables it; with one it does not', () => {
  const none = loadSettingsText(
    '[/modules]\nNSClientServer = enabled\n[/settings/NSClient/server]\nallowed hosts = 0.0.0.0/0\n',
    '/tmp/x/agent.ini',
  );
  assert.ok(none.ok, JSON.stringify(!none.ok && none.problems));
  const warning = none.warnings.find((w) => w.code === 'AGENT_WARN_NSCLIENT_NO_PASSWORD');
  assert.ok(warning, JSON.stringify(none.warnings));
  assert.equal(warning.line, 2);
  assert.ok(
    none.warnings.some((w) => w.code === 'AGENT_WARN_ALLOWED_HOSTS_OPEN' && w.section === '/settings/NSClient/server'),
  );
  const fallback = loadSettingsText(
    '[/modules]\nNSClientServer = enabled\n[/settings/default]\npassword = pw\n',
    '/tmp/x/agent.ini',
  );
  assert.ok(fallback.ok);
  assert.equal(
    fallback.warnings.some((w) => w.code === 'AGENT_WARN_NSCLIENT_NO_PASSWORD'),
    false,
  );
});

void test('variables expand with defaults relative to the settings folder and [/paths] overrides', async () => {
  const r = await loadSettingsFile(fixture('paths.ini'));
  assert.ok(r.ok, JSON.stringify(!r.ok && r.problems));
  const s = r.snapshot;
  assert.equal(s.variables['base-path'], FIXTURES);
  assert.equal(s.sections['/settings/WEB/server']?.certificate, `${FIXTURES}/certs/web.pem`);
  assert.equal(s.sections['/settings/external scripts']?.['script root'], '/opt/scripts/bin');
  const plain = loadSettingsText('[/settings/WEB/server]\nport = 1s\n', '/srv/agent/agent.ini');
  assert.ok(plain.ok);
  assert.equal(plain.snapshot.sections['/settings/WEB/server']?.certificate, '/srv/agent/security/certificate.pem');
});

void test('section paths and keys are case-insensitive; values keep their case', () => {
  const r = loadSettingsText(
    '[/SETTINGS/web/SERVER]\nPORT = 9443s\n[/Modules]\ncheckhelpers = ENABLED\n',
    '/tmp/x/agent.ini',
  );
  assert.ok(r.ok, JSON.stringify(!r.ok && r.problems));
  assert.equal(r.snapshot.sections['/settings/WEB/server']?.port, '9443s');
  assert.equal(r.snapshot.modules.CheckHelpers, true);
});

void test('edge cases of the reader load: dotted targets stay one section, special values survive', async () => {
  const r = await loadSettingsFile(fixture('dotted-section.ini'));
  assert.ok(r.ok, JSON.stringify(!r.ok && r.problems));
  assert.ok([...r.snapshot.targets.remote.keys()].some((k) => k.includes('.')));
});

void test('the snapshot is frozen', () => {
  const r = loadSettingsText('[/modules]\nCheckHelpers = 1\n', '/tmp/x/agent.ini');
  assert.ok(r.ok);
  assert.ok(Object.isFrozen(r.snapshot));
  assert.ok(Object.isFrozen(r.snapshot.sections['/modules']));
  assert.throws(() => {
    (r.snapshot.modules as Record<string, boolean>).WEBServer = true;
  });
});

void test('cross-key rule: AgentServer verify mode other than none needs a ca', () => {
  const bad = loadSettingsText('[/settings/agent/server]\nverify mode = peer-cert\n', '/tmp/x/agent.ini');
  assert.equal(bad.ok, false);
  assert.deepEqual(codesAt(bad.problems), ['AGENT_ERR_VALUE_INVALID@2:15']);
  assert.match(bad.problems[0]?.message ?? '', /needs a ca/);
  const good = loadSettingsText(
    '[/settings/agent/server]\nverify mode = peer-cert\nca = /etc/ca.pem\n',
    '/tmp/x/agent.ini',
  );
  assert.ok(good.ok);
  const plain = loadSettingsText(
    '[/modules]\nAgentServer = 1\n[/settings/agent/server]\nuse ssl = 0\nverify mode = peer-cert\n',
    '/tmp/x/agent.ini',
  );
  assert.ok(plain.ok, 'without TLS the verify mode is moot');
  assert.ok(plain.warnings.some((w) => w.code === 'AGENT_WARN_NO_CA'));
});

void test('cross-key rules: web port range and allowed hosts entries; /0 masks warn as open', () => {
  const bad = loadSettingsText(
    '[/settings/WEB/server]\nport = 70000s\nallowed hosts = 127.0.0.1, 10.0.0.0/33, nagios box\n',
    '/tmp/x/agent.ini',
  );
  assert.equal(bad.ok, false);
  assert.deepEqual(codesAt(bad.problems), ['AGENT_ERR_VALUE_INVALID@2:8', 'AGENT_ERR_VALUE_INVALID@3:17']);
  assert.match(bad.problems[0]?.message ?? '', /to 65535/);
  assert.match(bad.problems[1]?.message ?? '', /"10\.0\.0\.0\/33".*"nagios box"/);
  const open = loadSettingsText('[/settings/default]\nallowed hosts = 127.0.0.1/0\n', '/tmp/x/agent.ini');
  assert.ok(open.ok);
  assert.ok(open.warnings.some((w) => w.code === 'AGENT_WARN_ALLOWED_HOSTS_OPEN'));
  assert.ok(
    loadSettingsText(
      '[/settings/default]\nallowed hosts = 127.0.0.1, ::1, 10.0.*.*, 192.168.0.0/16, localhost\n',
      '/tmp/x/agent.ini',
    ).ok,
  );
});

void test('the roles full, client, monitoring and viewer are seeded unless defined; a role holding the bare legacy grant warns', () => {
  const seeded = loadSettingsText('[/settings/web/roles]\nops = info.get\n', '/tmp/x/agent.ini');
  assert.ok(seeded.ok);
  assert.deepEqual(seeded.snapshot.roles.get('full'), ['*']);
  assert.ok(seeded.snapshot.roles.get('client')?.includes('queries.execute'));
  assert.ok(!seeded.snapshot.roles.get('client')?.includes('legacy'));
  assert.deepEqual(seeded.snapshot.roles.get('monitoring'), [
    'public',
    'info.get',
    'queries.list',
    'queries.get',
    'queries.execute',
  ]);
  assert.ok(seeded.snapshot.roles.get('viewer')?.includes('settings.get'));
  assert.equal(seeded.warnings.length, 0);
  const own = loadSettingsText(
    '[/settings/web/roles]\nClient = public\nold = legacy, login.get\nwide = legacy.*\n',
    '/tmp/x/agent.ini',
  );
  assert.ok(own.ok);
  assert.deepEqual(own.snapshot.roles.get('Client'), ['public'], "the operator's own role wins");
  assert.equal(
    own.snapshot.roles.get('client'),
    undefined,
    'not seeded next to a role of the same name in another case',
  );
  assert.deepEqual(codesAt(own.warnings), ['AGENT_WARN_ROLE_LEGACY@3:7']);
  assert.match(own.warnings[0]?.message ?? '', /SECURITY: role "old" holds the legacy grant/);
});

void test('an allow-list pattern the linear-time matcher cannot run is a warning at its line', () => {
  const r = loadSettingsText(
    '[/modules]\nRemoteServer = enabled\n[/settings/remote/server]\nallowed queries = check_*, check_!(cpu)\n',
    '/tmp/t/agent.ini',
  );
  const w = r.warnings.filter((p) => p.code === 'AGENT_WARN_ALLOW_LIST_PATTERN');
  assert.equal(w.length, 1, JSON.stringify(r.warnings));
  assert.equal(inRange(w, 0).line, 4);
  assert.match(inRange(w, 0).message, /allowed queries: !\(…\) in check_!\(cpu\) is not supported/);
});

void test('a web password shorter than 12 characters is warned about at its line, never shown', () => {
  const weak = loadSettingsText(
    '[/modules]\nWEBServer = enabled\n[/settings/default]\npassword = test\n',
    '/tmp/x/agent.ini',
  );
  assert.ok(weak.ok);
  const w = weak.warnings.filter((p) => p.code === 'AGENT_WARN_WEAK_PASSWORD');
  assert.deepEqual(codesAt(w), ['AGENT_WARN_WEAK_PASSWORD@4:12']);
  assert.match(
    inRange(w, 0).message,
    /has 4 characters, fewer than 12: set a strong one with config-agent web password/,
  );
  assert.doesNotMatch(inRange(w, 0).message, /test/);
  const strong = loadSettingsText(
    '[/modules]\nWEBServer = enabled\n[/settings/WEB/server]\npassword = correct-horse-battery\n',
    '/tmp/x/agent.ini',
  );
  assert.ok(strong.ok);
  assert.deepEqual(
    strong.warnings.filter((p) => p.code === 'AGENT_WARN_WEAK_PASSWORD'),
    [],
  );
});
