/**
 * Layered loading (settings/model/section-layer.ts): host files loaded with one
 * reader over a shared base, reusing what the base contributes, give the
 * same snapshot (sections and their order, origins, objects and their
 * order, roles) and the same problems and warnings as a load computed from
 * the merged sections alone (`layers: false`), in every case the layering
 * treats specially: a host adding objects, overriding a base object or
 * template, overriding a base section that has a problem, overriding the
 * one-liner users section, adding an object with an unknown parent.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LoadResult } from '../../../src/settings/model/load.js';
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

  void it('gives for every host what a load without layers gives, in one reader and in any order', async () => {
    const reader = new SettingsReader();
    const names = Object.keys(HOSTS);
    for (const name of [...names, ...names.reverse()]) {
      const layered = await loadSettingsFile(host(name), { reader });
      const reference = await loadSettingsFile(host(name), { layers: false });
      assert.deepStrictEqual(summary(layered), summary(reference), name);
    }
    assert.equal(reader.parsed, names.length + 2, 'each file parsed once');
  });

  void it('the layered cases do what they say', async () => {
    const reader = new SettingsReader();
    const load = (name: string) => loadSettingsFile(host(name), { reader });
    assert.equal((await load('plain')).ok, true);
    const bad = await load('bad-plain');
    assert.equal(bad.ok, false);
    assert.match(bad.problems.map((p) => `${p.file}:${p.line} ${p.key}`).join('\n'), /bad\.ini:2 timeout/);
    const fixed = await load('bad-fixed');
    assert.equal(fixed.ok, true, JSON.stringify(fixed.problems));
    const added = await load('adds-section');
    assert.ok(added.ok);
    assert.equal(added.snapshot.targets.remote.get('db')?.values.timeout, 20);
    const template = await load('overrides-template');
    assert.ok(template.ok);
    assert.equal(
      template.snapshot.targets.remote.get('db')?.values.timeout,
      30,
      'a host overriding the template changes the base object inheriting from it',
    );
    const users = await load('overrides-one-liners');
    assert.ok(users.ok);
    assert.deepEqual([...users.snapshot.users.keys()].filter((u) => !['default', 'sample'].includes(u)).sort(), [
      'ann',
      'bob',
      'eve',
    ]);
    const lost = await load('unknown-parent');
    assert.ok(
      lost.problems.some((p) => p.code === 'AGENT_ERR_OBJECT_PARENT_UNKNOWN' && p.file === host('unknown-parent')),
    );
  });
});
