/**
 * The pulled settings as the lowest layer of the tree (settings/model/source-layer.ts):
 * under the local file and its includes, only when the local file names a
 * source, never holding [/settings/source] or including a local path; `${hostname}` in
 * the url; the insecure warnings; remote includes (their cached pull at
 * their place, a warning before the first pull).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadSettingsFile } from '../../../src/settings/store/load-file.js';
import { SettingsReader } from '../../../src/settings/store/includes.js';
import { parseIni } from '../../../src/settings/ini/read-ini.js';
import { remoteIncludeCache } from '../../../src/settings/model/source-layer.js';

const dir = mkdtempSync(join(tmpdir(), 'source-layer-'));
const cache = join(dir, 'state', 'settings-source', 'pulled.ini');
mkdirSync(join(dir, 'state', 'settings-source'), { recursive: true });

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

const local = (source: string, more = ''): string =>
  `[/paths]\nstate = ${join(dir, 'state')}\n\n[/settings/source]\n${source}\n${more}`;

void describe('settings/model/source-layer.ts', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  void it('puts the pulled file under the includes and the local file', async () => {
    writeFileSync(cache, '[/settings/log]\nlevel = error\nbuffer size = 1234\n\n[/settings/default]\ntimeout = 11\n');
    write('base.ini', '[/settings/default]\ntimeout = 22\n');
    const main = write(
      'agent.ini',
      local(
        'url = https://example.invalid/a.ini',
        '\n[/includes]\nbase = base.ini\n\n[/settings/log]\nlevel = warning\n',
      ),
    );
    const r = await loadSettingsFile(main);
    assert.ok(r.ok, JSON.stringify(r.problems));
    assert.equal(r.snapshot.sections['/settings/log']?.['buffer size'], 1234);
    assert.equal(r.snapshot.sections['/settings/log'].level, 'warning', 'local over pulled');
    assert.equal(r.snapshot.sections['/settings/default']?.timeout, 22, 'an include over pulled');
    assert.deepEqual(
      r.snapshot.sources.map((s) => s.file),
      [cache, join(dir, 'base.ini'), main],
    );
    assert.ok(r.watched.includes(cache));
  });

  void it('reads no pulled file without a url', async () => {
    writeFileSync(cache, '[/settings/log]\nbuffer size = 1234\n');
    const r = await loadSettingsFile(write('plain.ini', local('url =')));
    assert.ok(r.ok);
    assert.equal(r.snapshot.sections['/settings/log']?.['buffer size'], 5000);
    assert.ok(!r.watched.includes(cache));
  });

  void it('refuses [/settings/source], and an include of a local path, in the pulled text', async () => {
    const main = write('agent2.ini', local('url = https://example.invalid/a.ini'));
    const reader = new SettingsReader();
    await reader.source(
      cache,
      Buffer.from('[/includes]\nx = /etc/passwd\n\n[/settings/source]\nurl = https://evil.invalid/\n'),
    );
    const r = await loadSettingsFile(main, { reader });
    assert.equal(r.ok, false);
    assert.deepEqual(
      r.problems.filter((p) => p.code === 'AGENT_ERR_SOURCE_SECTION').map((p) => p.section),
      ['/settings/source'],
    );
    const inc = r.problems.find((p) => p.code === 'AGENT_ERR_SOURCE_INCLUDE');
    assert.ok(inc, JSON.stringify(r.problems));
    assert.equal(inc.line, 2);
    assert.equal(inc.file, cache);
    assert.match(inc.message, /cannot include \/etc\/passwd: an absolute path/);
  });

  void it('expands ${hostname} in the url, and warns about insecure and http://', async () => {
    writeFileSync(cache, '');
    const saved = process.env.AGENT_HOSTNAME;
    process.env.AGENT_HOSTNAME = 'web01.example.org';
    try {
      const r = await loadSettingsFile(
        write('agent3.ini', local('url = http://cfg.example.org/hosts/${host}/${hostname}.ini\ninsecure = true')),
      );
      assert.ok(r.ok, JSON.stringify(r.problems));
      assert.equal(
        r.snapshot.sections['/settings/source']?.url,
        'http://cfg.example.org/hosts/web01/web01.example.org.ini',
      );
      assert.deepEqual(
        r.warnings
          .filter((w) => w.code === 'AGENT_WARN_SOURCE_INSECURE')
          .map((w) => w.key)
          .sort(),
        ['insecure', 'url'],
      );
    } finally {
      if (saved === undefined) delete process.env.AGENT_HOSTNAME;
      else process.env.AGENT_HOSTNAME = saved;
    }
  });

  void it('a remote include: nothing but a warning before its first pull, then its cached pull at its place', async () => {
    const url = 'https://example.invalid/shared/base.ini';
    write('local-over.ini', '[/settings/default]\ntimeout = 33\n');
    const main = write(
      'remote.ini',
      `[/paths]\nstate = ${join(dir, 'state')}\n\n[/includes]\nshared = ${url}\nover = local-over.ini\n`,
    );
    const first = await loadSettingsFile(main);
    assert.ok(first.ok);
    assert.deepEqual(
      first.warnings.map((w) => [w.code, w.line]),
      [['AGENT_WARN_INCLUDE_NOT_PULLED', 5]],
    );
    const cacheFile = remoteIncludeCache(main, parseIni(readFileSync(main, 'utf8'), main), url);
    assert.equal(cacheFile, first.snapshot.remoteIncludes?.[0]?.cache);
    assert.equal(first.snapshot.remoteIncludes?.[0]?.url, url);
    assert.match(cacheFile, /settings-source\/includes\/[0-9a-f]{24}\.ini$/);
    mkdirSync(dirname(cacheFile), { recursive: true });
    writeFileSync(cacheFile, '[/settings/default]\ntimeout = 44\nallowed hosts = 10.1.2.3\n');
    const second = await loadSettingsFile(main);
    assert.ok(second.ok);
    assert.deepEqual(second.warnings, []);
    // The later local include overrides the remote one; what only the remote one sets comes from it.
    assert.equal(second.snapshot.sections['/settings/default']?.timeout, 33);
    assert.equal(second.snapshot.origins['/settings/default']?.['allowed hosts']?.file, cacheFile);
  });

  void it('a remote include holding [/includes] is refused', async () => {
    const url = 'https://example.invalid/evil.ini';
    const main = write('evil.ini', `[/paths]\nstate = ${join(dir, 'state')}\n\n[/includes]\nx = ${url}\n`);
    const cacheFile = remoteIncludeCache(main, parseIni(readFileSync(main, 'utf8'), main), url);
    mkdirSync(dirname(cacheFile), { recursive: true });
    writeFileSync(cacheFile, '[/includes]\ny = /etc/passwd\n');
    const r = await loadSettingsFile(main);
    assert.ok(!r.ok);
    assert.deepEqual(
      r.problems.map((p) => p.code),
      ['AGENT_ERR_SOURCE_SECTION'],
    );
  });
});
