/**
 * Layered loading (settings/model/section-layer.ts), the one load: host files
 * loaded with one reader over a shared base, reusing what the base
 * contributes, give the expected snapshot (problems and warnings with their
 * file and line, sections and their order, origins, objects and their
 * order, users, roles) in every case the layering treats specially: a host
 * adding objects, overriding a base object or template, overriding a base
 * section that has a problem, overriding the one-liner users section, adding
 * an object with an unknown parent. A warm reader (the base's layer reused,
 * hosts in any order) gives what a cold one gives.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { type LoadResult } from '../../../src/settings/model/load.js';
import { type SettingsProblem } from '../../../src/settings/model/problem.js';
import { loadSettingsFile } from '../../../src/settings/store/load-file.js';
import { SettingsReader } from '../../../src/settings/store/includes.js';

const BASE = `[/modules]
RemoteClient = enabled
WEBServer = enabled

[/settings/default]
allowed hosts = 127.0.0.1
timeout = 10

[/settings/WEB/server]
password = base-password

[/settings/web/users]
eve = eve-password

[/settings/web/roles]
ops = info.get

[/settings/web/users/ann]
password = ann-password
role = ops

[/settings/remote/client/targets/tpl]
is template = true
timeout = 20

[/settings/remote/client/targets/db]
parent = tpl
address = db.example.com:5666

[/settings/remote/client/targets/web]
address = web.example.com:5666
`;

const HOSTS: Record<string, string> = {
  plain: '',
  'adds-target': '[/settings/remote/client/targets/local]\nparent = tpl\naddress = host.example.com:5666\n',
  'overrides-target': '[/settings/remote/client/targets/DB]\naddress = db2.example.com:5666\n',
  'overrides-template':
    '[/settings/remote/client/targets/tpl]\ntimeout = 30\n\n[/settings/remote/client/targets/extra]\naddress = x.example.com:1\n',
  'bad-plain': '',
  'bad-fixed': '[/settings/default]\ntimeout = 5\n',
  'adds-section': '[/settings/log]\nlevel = debug\n\n[/settings/default]\ntimeout = 7\n',
  'overrides-one-liners': '[/settings/web/users]\nbob = bob-password\n',
  'unknown-parent': '[/settings/remote/client/targets/lost]\nparent = nowhere\naddress = l.example.com:1\n',
  'adds-default': '[/settings/remote/client/targets/default]\ntimeout = 40\n',
  'adds-user': '[/settings/web/users/zed]\npassword = zed-password\nrole = ops\n',
};

/** The base's warnings, which every host has. */
const BASE_WARNINGS = [
  'AGENT_WARN_PLAIN_PASSWORD base.ini:13 password',
  'AGENT_WARN_UI_SIGN_IN base.ini:16 ops',
  'AGENT_WARN_PLAIN_PASSWORD base.ini:19 password',
];
const BASE_TARGETS = [
  'tpl::20',
  'db:db.example.com:5666:20',
  'web:web.example.com:5666:10',
  'default::10',
  'sample::10',
];
const BASE_USERS = ['eve', 'ann', 'default', 'sample'];
const BASE_ORDER = [
  '/modules',
  '/settings/default',
  '/settings/WEB/server',
  '/settings/web/users',
  '/settings/web/roles',
];

interface Expected {
  problems?: string[];
  /** Warnings before the base's. */
  warnings?: string[];
  /** [/settings/default] timeout and where it comes from. */
  timeout?: [number, string];
  log?: string;
  /** Remote targets in order: name:address:timeout. */
  targets?: string[];
  users?: string[];
  /** The sixth section (after BASE_ORDER). */
  sixth?: string;
}

/** What each host loads to; a case without problems is ok. */
const EXPECTED: Record<string, Expected> = {
  plain: {},
  'adds-target': {
    targets: [...BASE_TARGETS.slice(0, 3), 'local:host.example.com:5666:20', ...BASE_TARGETS.slice(3)],
  },
  'overrides-target': { targets: ['tpl::20', 'db:db2.example.com:5666:20', ...BASE_TARGETS.slice(2)] },
  'overrides-template': {
    targets: [
      'tpl::30',
      'db:db.example.com:5666:30',
      BASE_TARGETS[2]!,
      'extra:x.example.com:1:10',
      ...BASE_TARGETS.slice(3),
    ],
  },
  'bad-plain': { problems: ['AGENT_ERR_VALUE_TYPE bad.ini:2 /settings/default timeout'] },
  'bad-fixed': { timeout: [5, 'bad-fixed.ini:6'] },
  'adds-section': { timeout: [7, 'adds-section.ini:8'], log: 'debug', sixth: '/settings/log' },
  'overrides-one-liners': {
    warnings: ['AGENT_WARN_PLAIN_PASSWORD overrides-one-liners.ini:5 password'],
    users: ['eve', 'bob', 'ann', 'default', 'sample'],
  },
  'unknown-parent': {
    problems: ['AGENT_ERR_OBJECT_PARENT_UNKNOWN unknown-parent.ini:5 /settings/remote/client/targets/lost parent'],
  },
  'adds-default': {
    targets: [...BASE_TARGETS.slice(0, 2), 'web:web.example.com:5666:40', 'default::40', 'sample::40'],
  },
  'adds-user': {
    warnings: ['AGENT_WARN_PLAIN_PASSWORD adds-user.ini:5 password'],
    users: ['eve', 'ann', 'zed', 'default', 'sample'],
  },
};

const at = (p: SettingsProblem): string =>
  [p.code, `${basename(p.file)}:${p.line}`, p.section, p.key].filter((x) => x !== undefined).join(' ');

/** The load of one host against its expected result. */
function check(name: string, r: LoadResult): void {
  const want = EXPECTED[name]!;
  assert.deepEqual(r.problems.map(at), want.problems ?? [], name);
  assert.deepEqual(
    r.warnings.map((p) => `${p.code} ${basename(p.file)}:${p.line} ${p.key}`),
    [...(want.warnings ?? []), ...BASE_WARNINGS],
    name,
  );
  assert.equal(r.ok, want.problems === undefined, name);
  if (!r.ok) return;
  const snap = r.snapshot;
  const [timeout, from] = want.timeout ?? [10, 'base.ini:7'];
  const def = snap.sections['/settings/default'] as Record<string, unknown>;
  assert.equal(def.timeout, timeout, name);
  assert.equal(def['allowed hosts'], '127.0.0.1', name);
  const origin = snap.origins['/settings/default']?.timeout;
  assert.equal(`${basename(origin?.file ?? '')}:${origin?.line}`, from, name);
  assert.equal((snap.sections['/settings/log'] as Record<string, unknown>).level, want.log ?? 'info', name);
  assert.deepEqual(Object.keys(snap.sections).slice(0, 6), [...BASE_ORDER, want.sixth ?? '/paths'], name);
  const targets = [...snap.targets.remote].map(([k, v]) =>
    [k, v.values.address ?? '', v.values.timeout].map(String).join(':'),
  );
  assert.deepEqual(targets, want.targets ?? BASE_TARGETS, name);
  assert.deepEqual([...snap.users.keys()], want.users ?? BASE_USERS, name);
  assert.deepEqual(snap.roles.get('ops'), ['info.get'], name);
  assert.equal((snap.sections['/settings/WEB/server'] as Record<string, unknown>).password, 'base-password', name);
  assert.ok(snap.secretValues.includes('base-password'), name);
}

/** Everything a load produces, with the order of sections and objects. */
function summary(r: LoadResult): unknown {
  const objects = (m: ReadonlyMap<string, unknown>) => [...m.entries()];
  const snap = r.ok ? r.snapshot : undefined;
  return {
    ok: r.ok,
    problems: r.problems,
    warnings: r.warnings,
    sectionOrder: snap ? Object.keys(snap.sections) : [],
    sections: snap?.sections,
    origins: snap?.origins,
    modules: snap?.modules,
    targets: snap ? { agent: objects(snap.targets.agent), remote: objects(snap.targets.remote) } : undefined,
    users: snap ? objects(snap.users) : undefined,
    aliases: snap ? objects(snap.aliases) : undefined,
    roles: snap ? objects(snap.roles) : undefined,
    secrets: snap?.secretValues,
  };
}

void describe('layered loading over a shared base', () => {
  let dir = '';
  const host = (name: string): string => join(dir, 'hosts', `${name}.ini`);
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'section-layer-'));
    mkdirSync(join(dir, 'shared'));
    mkdirSync(join(dir, 'hosts'));
    writeFileSync(join(dir, 'shared', 'base.ini'), BASE);
    // The bad-* hosts include a second base with a problem that bad-fixed overrides.
    writeFileSync(join(dir, 'shared', 'bad.ini'), '[/settings/default]\ntimeout = soon\n');
    for (const [name, text] of Object.entries(HOSTS))
      writeFileSync(
        host(name),
        `[/includes]\nbase = ../shared/base.ini\n${name.startsWith('bad-') ? 'bad = ../shared/bad.ini\n' : ''}\n${text}`,
      );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  void it('gives every host its expected result, with a cold reader and with one warm reader in any order', async () => {
    const reader = new SettingsReader();
    const names = Object.keys(HOSTS);
    for (const name of [...names, ...names.reverse()]) {
      const warm = await loadSettingsFile(host(name), { reader });
      check(name, warm);
      const cold = await loadSettingsFile(host(name));
      check(name, cold);
      assert.deepStrictEqual(summary(warm), summary(cold), name);
    }
    assert.equal(reader.parsed, names.length + 2, 'each file parsed once');
  });
});
