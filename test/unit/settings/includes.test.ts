/**
 * [/includes] on real files in a temp folder: overrides, origins naming the
 * file, nested includes, folders and patterns in name order, host
 * placeholders, missing files and cycles at the include's line, one parse
 * per file per reader, and secrets from ${env:} / ${file:} masked in
 * problems.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadSettingsFile } from '../../../src/settings/store/load-file.js';
import { hostPlaceholders, SettingsReader } from '../../../src/settings/store/includes.js';
import type { Snapshot } from '../../../src/settings/model/snapshot.js';
import { inRange } from '../../../src/in-range.js';

let dir = '';
function put(rel: string, text: string): string {
  const file = join(dir, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}
async function ok(file: string, reader?: SettingsReader): Promise<Snapshot> {
  const r = await loadSettingsFile(file, reader ? { reader } : {});
  assert.ok(r.ok, r.ok ? '' : r.problems.map((p) => `${p.file}:${p.line}:${p.col} ${p.message}`).join('\n'));
  return r.snapshot;
}

void describe('[/includes]', () => {
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'includes-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  void it('a host file overlays a shared base; each value names the file and line it comes from', async () => {
    put(
      'shared/base.ini',
      '[/settings/default]\ntimeout = 10\nallowed hosts = 10.0.0.1\n\n[/settings/remote/client/targets/nagios]\naddress = 10.0.0.9:5666\ntimeout = 5\n',
    );
    const host = put(
      'hosts/a.ini',
      '[/includes]\nbase = ../shared/base.ini\n\n[/settings/default]\ntimeout = 20\n\n[/settings/remote/client/targets/nagios]\ntimeout = 7\n',
    );
    const s = await ok(host);
    assert.equal(s.sections['/settings/default']?.timeout, 20);
    assert.equal(s.sections['/settings/default']['allowed hosts'], '10.0.0.1');
    assert.deepEqual(
      [s.origins['/settings/default']?.timeout?.file, s.origins['/settings/default']?.timeout?.line],
      [host, 5],
    );
    assert.deepEqual(
      [
        s.origins['/settings/default']?.['allowed hosts']?.file,
        s.origins['/settings/default']?.['allowed hosts']?.line,
      ],
      [join(dir, 'shared/base.ini'), 3],
    );
    const t = s.targets.remote.get('nagios');
    assert.equal(t?.values.timeout, 7);
    assert.equal(t.values.address, '10.0.0.9:5666');
    assert.equal(t.origins.address?.file, join(dir, 'shared/base.ini'));
    assert.deepEqual(
      s.sources.map((f) => f.file),
      [join(dir, 'shared/base.ini'), host],
    );
  });

  void it('follows nested includes, folders and patterns in name order; a later include overrides an earlier one', async () => {
    put('conf.d/20-b.ini', '[/settings/log]\nlevel = warning\n');
    put('conf.d/10-a.ini', '[/settings/log]\nlevel = error\nbuffer size = 100\n');
    put('conf.d/notes.txt', 'not ini');
    put('extra/x1.ini', '[/includes]\nnested = ../conf.d\n');
    put('extra/x2.ini', '[/settings/default]\ntimeout = 3\n');
    const main = put('nested.ini', '[/includes]\nglob = extra/x*.ini\n');
    const s = await ok(main);
    assert.equal(s.sections['/settings/log']?.level, 'warning', '20-b comes after 10-a');
    assert.equal(s.sections['/settings/log']['buffer size'], 100);
    assert.equal(s.sections['/settings/default']?.timeout, 3);
    assert.deepEqual(
      s.sources.map((f) => f.file.slice(dir.length + 1)),
      ['conf.d/10-a.ini', 'conf.d/20-b.ini', 'extra/x1.ini', 'extra/x2.ini', 'nested.ini'],
    );
  });

  void it('expands host placeholders in include paths', async () => {
    assert.deepEqual(hostPlaceholders('Web01.Example.com'), {
      hostname: 'Web01.Example.com',
      hostname_lc: 'web01.example.com',
      hostname_uc: 'WEB01.EXAMPLE.COM',
      host: 'Web01',
      host_lc: 'web01',
      host_uc: 'WEB01',
      domain: 'Example.com',
      domain_lc: 'example.com',
      domain_uc: 'EXAMPLE.COM',
    });
    put('hosts/web01.ini', '[/settings/default]\ntimeout = 42\n');
    const boot = put('boot.ini', '[/includes]\nhost = hosts/${host_lc}.ini\n');
    const s = await ok(boot, new SettingsReader({ hostVars: hostPlaceholders('WEB01.example.com') }));
    assert.equal(s.sections['/settings/default']?.timeout, 42);
  });

  void it('reports a missing file, an unknown placeholder and a cycle at the include line; duplicates within one file stay errors', async () => {
    put('cycle/a.ini', '[/includes]\nb = b.ini\n');
    put('cycle/b.ini', '[/settings/log]\nlevel = debug\n[/includes]\na = a.ini\n');
    const main = put(
      'broken.ini',
      '[/modules]\nCheckHelpers = enabled\n\n[/includes]\nmissing = nope/none.ini\nbad = ${nohost}.ini\ncycle = cycle/a.ini\n\n[/settings/log]\nlevel = info\nlevel = debug\n',
    );
    const r = await loadSettingsFile(main);
    assert.equal(r.ok, false);
    const seen = r.problems.map((p) => `${p.file.slice(dir.length + 1)}:${p.line}:${p.col} ${p.code}`);
    assert.deepEqual(seen, [
      'broken.ini:5:11 AGENT_ERR_INCLUDE_MISSING',
      'broken.ini:6:7 AGENT_ERR_VARIABLE_UNKNOWN',
      'broken.ini:11:1 AGENT_ERR_INI_DUPLICATE_KEY',
      'cycle/b.ini:4:5 AGENT_ERR_INCLUDE_CYCLE',
    ]);
    assert.match(inRange(r.problems, 0).message, /cannot include nope\/none\.ini: no such file/);
    assert.match(inRange(r.problems, 3).message, /broken\.ini -> a\.ini -> b\.ini -> a\.ini/);
  });

  void it('reads and parses each shared file once per reader', async () => {
    put('fleet/base.ini', '[/settings/remote/client/targets/t1]\naddress = 10.0.0.1\n');
    const hosts = Array.from({ length: 20 }, (_, i) =>
      put(`fleet/h${i}.ini`, `[/includes]\nbase = base.ini\n\n[/settings/default]\ntimeout = ${i + 1}\n`),
    );
    const reader = new SettingsReader();
    for (const h of hosts) assert.equal((await ok(h, reader)).targets.remote.get('t1')?.values.address, '10.0.0.1');
    assert.equal(reader.parsed, 21);
  });

  void it('${env:} and ${file:} fill values, count as secrets, and never show in problems', async () => {
    process.env.INCLUDES_TEST_PW = 'env-secret-value';
    put('secrets/web.pw', 'file-secret-value\n');
    const main = put(
      'secrets/agent.ini',
      '[/settings/default]\npassword = ${env:INCLUDES_TEST_PW}\n\n[/settings/WEB/server]\npassword = ${file:web.pw}\nbind to = ${env:INCLUDES_TEST_PW}\nport = ${file:web.pw}\n',
    );
    const r = await loadSettingsFile(main);
    assert.equal(r.ok, false);
    const text = JSON.stringify(r.problems);
    assert.doesNotMatch(text, /env-secret-value|file-secret-value/);
    assert.match(text, /port/);
    const good = put(
      'secrets/good.ini',
      '[/settings/default]\npassword = ${env:INCLUDES_TEST_PW}\n\n[/settings/WEB/server]\npassword = ${file:web.pw}\n',
    );
    const s = await ok(good);
    assert.equal(s.sections['/settings/default']?.password, 'env-secret-value');
    assert.equal(s.sections['/settings/WEB/server']?.password, 'file-secret-value', 'the final line break is trimmed');
    assert.equal(s.origins['/settings/default']?.password?.secret, true);
    assert.deepEqual([...s.secretValues].sort(), ['env-secret-value', 'file-secret-value']);
    // A variable ${env:} has read left the environment (scripts do not inherit it); the agent keeps its value.
    assert.equal(process.env.INCLUDES_TEST_PW, undefined);
    assert.equal((await ok(good)).sections['/settings/default']?.password, 'env-secret-value');
    const unset = await loadSettingsFile(
      put('secrets/unset.ini', '[/settings/default]\npassword = ${env:INCLUDES_TEST_NEVER_SET}\n'),
    );
    assert.equal(unset.ok, false);
    assert.deepEqual(
      unset.problems.map((p) => [p.code, p.line, p.col]),
      [['AGENT_ERR_ENV_UNSET', 2, 12]],
    );
    const missing = put('secrets/missing.ini', '[/settings/default]\npassword = x${file:nope.pw}\n');
    const m = await loadSettingsFile(missing);
    assert.deepEqual(m.ok ? [] : m.problems.map((p) => [p.code, p.line, p.col, p.message]), [
      ['AGENT_ERR_SECRET_FILE', 2, 13, 'cannot read the secret file nope.pw: no such file'],
    ]);
  });
});
