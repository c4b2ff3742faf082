/**
 * `[/includes]` of pulled settings (settings/store/pulled-includes.ts): a relative
 * path inside the repository is resolved against the including file's
 * place; an absolute path, a URL, a drive letter, a `..` above the root, a
 * folder or a pattern is refused; the loader reads the included files from
 * the cache folder, below the file that includes them, all below the local
 * file, and says which file and line an include it refuses is at.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadSettingsFile } from '../../../src/settings/store/load-file.js';
import { SettingsReader } from '../../../src/settings/store/includes.js';
import { matchingFiles, pulledIncludePath } from '../../../src/settings/store/pulled-includes.js';

const dir = mkdtempSync(join(tmpdir(), 'pulled-includes-'));
const folder = join(dir, 'state', 'settings-source');
const cache = join(folder, 'pulled.ini');

function write(file: string, text: string): string {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const main = write(
  join(dir, 'agent.ini'),
  `[/paths]\nstate = ${join(dir, 'state')}\n\n[/settings/source]\nurl = git://example.invalid/fleet.git\npath = hosts/web01.ini\n\n[/settings/log]\nlevel = warning\n`,
);

void describe('settings/store/pulled-includes.ts', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  void it('resolves a relative path inside the repository, and refuses every way out', () => {
    assert.deepEqual(pulledIncludePath('hosts/web01.ini', '../shared/base.ini'), { path: 'shared/base.ini' });
    assert.deepEqual(pulledIncludePath('web01.ini', 'shared/./base.ini'), { path: 'shared/base.ini' });
    assert.deepEqual(pulledIncludePath('a/b/c.ini', '../../x.ini'), { path: 'x.ini' });
    for (const [value, why] of [
      ['../../etc/passwd', /leaves the repository/],
      ['../..', /leaves the repository/],
      ['..', /names the repository itself/],
      ['/etc/passwd', /absolute path/],
      ['https://evil.invalid/x.ini', /URL/],
      ['file:///etc/passwd', /URL/],
      ['C:\\x.ini', /drive letter/],
      ['..\\x.ini', /backslash/],
      ['shared/*.ini', /pattern/],
      ['shared/', /folder/],
    ] as const) {
      const got = pulledIncludePath('hosts/web01.ini', value);
      assert.ok('why' in got, value);
      assert.match(got.why, why, value);
    }
  });

  void it('a folder or pattern only where the pull can be listed (git), never out of the repository', () => {
    assert.deepEqual(pulledIncludePath('hosts/web01.ini', '../roles/*.ini', true), {
      folder: 'roles',
      pattern: '*.ini',
    });
    assert.deepEqual(pulledIncludePath('hosts/web01.ini', '../roles/', true), { folder: 'roles', pattern: '*.ini' });
    assert.deepEqual(pulledIncludePath('web01.ini', '*.ini', true), { folder: '', pattern: '*.ini' });
    for (const [value, why] of [
      ['../../*.ini', /leaves the repository/],
      ['../../', /leaves the repository/],
      ['*/x.ini', /only the last segment/],
    ] as const) {
      const got = pulledIncludePath('hosts/web01.ini', value, true);
      assert.ok('why' in got, value);
      assert.match(got.why, why, value);
    }
    const files = ['roles/b.ini', 'roles/a.ini', 'roles/.hidden.ini', 'roles/x.txt', 'roles/sub/c.ini', 'other/d.ini'];
    assert.deepEqual(matchingFiles({ folder: 'roles', pattern: '*.ini' }, files), ['roles/a.ini', 'roles/b.ini']);
  });

  void it('a git pull includes a pattern from its listed files, in name order', async () => {
    write(cache, '[/includes]\nroles = ../roles/*.ini\n');
    const files = [{ path: 'roles/a.ini' }, { path: 'roles/b.ini' }];
    write(
      join(folder, 'pulled.json'),
      JSON.stringify({ url: 'x', revision: 'r', location: 'hosts/web01.ini', kind: 'git', files }),
    );
    write(join(folder, 'pulled-files', 'roles', 'a.ini'), '[/settings/default]\ntimeout = 41\n');
    write(join(folder, 'pulled-files', 'roles', 'b.ini'), '[/settings/default]\ntimeout = 42\n');
    // Not part of the pull: a stray file in the cache folder is not included.
    write(join(folder, 'pulled-files', 'roles', 'c.ini'), '[/settings/default]\ntimeout = 43\n');
    const r = await loadSettingsFile(main);
    assert.ok(r.ok, JSON.stringify(r.problems));
    assert.equal(r.snapshot.sections['/settings/default']?.timeout, 42);
    assert.deepEqual(
      r.snapshot.sources.map((s) => s.file),
      [join(folder, 'pulled-files', 'roles', 'a.ini'), join(folder, 'pulled-files', 'roles', 'b.ini'), cache, main],
    );
  });

  void it('reads what the pull includes from the cache, below it, all below the local file', async () => {
    write(cache, '[/includes]\nbase = ../shared/base.ini\n\n[/settings/log]\nbuffer size = 1234\n');
    write(join(folder, 'pulled.json'), JSON.stringify({ url: 'x', revision: 'r', location: 'hosts/web01.ini' }));
    write(
      join(folder, 'pulled-files', 'shared', 'base.ini'),
      '[/settings/log]\nbuffer size = 99\nlevel = error\n\n[/settings/default]\ntimeout = 22\n',
    );
    const r = await loadSettingsFile(main);
    assert.ok(r.ok, JSON.stringify(r.problems));
    assert.equal(r.snapshot.sections['/settings/default']?.timeout, 22, 'from the base');
    assert.equal(r.snapshot.sections['/settings/log']?.['buffer size'], 1234, 'the host file over its base');
    assert.equal(r.snapshot.sections['/settings/log'].level, 'warning', 'the local file over both');
    const over = r.warnings.filter((w) => w.code === 'AGENT_WARN_PULLED_OVERRIDDEN');
    assert.deepEqual(
      over.map((w) => [w.file, w.key]),
      [[main, 'level']],
      'a key of the base the local file overrides is warned about, once',
    );
    assert.deepEqual(
      r.snapshot.sources.map((s) => s.file),
      [join(folder, 'pulled-files', 'shared', 'base.ini'), cache, main],
    );
  });

  void it('refuses an include out of the repository at its file and line; a pull given to the reader resolves from its place', async () => {
    const reader = new SettingsReader();
    await reader.source(cache, Buffer.from('; a host\n[/includes]\nbase = ../../../etc/base.ini\n'));
    reader.locations.set(cache, { location: 'hosts/web01.ini' });
    const r = await loadSettingsFile(main, { reader });
    assert.equal(r.ok, false);
    const p = r.problems.find((x) => x.code === 'AGENT_ERR_SOURCE_INCLUDE');
    assert.ok(p, JSON.stringify(r.problems));
    assert.equal(p.file, cache);
    assert.equal(p.line, 3);
    assert.match(p.message, /the pulled file hosts\/web01\.ini \(line 3\) cannot include .*leaves the repository/);
  });

  void it('a cycle in the pull is an error', async () => {
    write(cache, '[/includes]\nbase = ../shared/base.ini\n');
    write(join(folder, 'pulled-files', 'shared', 'base.ini'), '[/includes]\nback = ../hosts/web01.ini\n');
    write(join(folder, 'pulled-files', 'hosts', 'web01.ini'), '[/includes]\nbase = ../shared/base.ini\n');
    const r = await loadSettingsFile(main);
    assert.equal(r.ok, false);
    assert.ok(
      r.problems.some((p) => p.code === 'AGENT_ERR_INCLUDE_CYCLE'),
      JSON.stringify(r.problems),
    );
  });
});
