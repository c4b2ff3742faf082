/**
 * The code cache `npm run build` writes beside the bundle (src/tools/bundle.mjs):
 * made by this node for each bundle file (main.cjs, on-demand.cjs), so V8 takes
 * it, and warm for main.cjs: it holds the functions a start of the agent
 * compiled, not only the bundle's top level.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO } from '../helpers/agent-process.js';
import { loadSettingsFile } from '../../src/settings/store/load-file.js';

const bundle = join(REPO, 'dist/agent/main.cjs');
const launcher = createRequire(import.meta.url)(join(REPO, 'dist/agent.cjs')) as {
  compile: (file: string, cachedData?: Buffer) => import('node:vm').Script;
};
const compile = launcher.compile;

void test('the build writes a code cache of each bundle file that this node accepts', () => {
  const files = readdirSync(dirname(bundle)).filter((name) => name.endsWith('.cjs'));
  assert.deepEqual(files.sort(), ['main.cjs', 'on-demand.cjs']);
  for (const name of files) {
    const file = join(dirname(bundle), name);
    const script = compile(file, readFileSync(`${file}.cache`));
    assert.equal(script.cachedDataRejected, false, name);
  }
});

void test('the code cache is warm: larger than the cache of the top level alone', () => {
  const warm = readFileSync(`${bundle}.cache`).length;
  // In a process of its own: here V8's compilation cache may hand back the script the first test
  // compiled with the warm cache, whose functions are all compiled (then both sizes are the same).
  const topLevel = Number(
    execFileSync(
      process.execPath,
      [
        '-e',
        `process.stdout.write(String(require(${JSON.stringify(join(REPO, 'dist/agent.cjs'))}).compile(${JSON.stringify(bundle)}).createCachedData().length))`,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    ),
  );
  assert.ok(warm > topLevel * 1.5, `warm cache ${warm} bytes, top level alone ${topLevel} bytes`);
});

void test('the warm-up start runs what a start on the shipped settings runs: the same modules, the web server over TLS', async () => {
  // A function the warm-up start did not run is compiled at every start: with the web server on a
  // plain port there, each start over TLS compiled the TLS code again (issue 41).
  const tools = pathToFileURL(join(REPO, 'src/tools/code-cache.mjs')).href;
  const { warmSettings } = (await import(tools)) as { warmSettings: () => string };
  const dir = mkdtempSync(join(tmpdir(), 'warm-settings-'));
  try {
    writeFileSync(join(dir, 'agent.ini'), warmSettings());
    const warm = await loadSettingsFile(join(dir, 'agent.ini'));
    const shipped = await loadSettingsFile(join(REPO, 'settings/agent.ini'));
    if (!warm.ok || !shipped.ok) assert.fail(JSON.stringify([warm.problems, shipped.problems]));
    assert.deepEqual(warm.snapshot.sections['/modules'], shipped.snapshot.sections['/modules']);
    assert.match(String(shipped.snapshot.sections['/settings/WEB/server']?.port), /s$/);
    assert.equal(warm.snapshot.sections['/settings/WEB/server']?.port, '0s');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** dist/bin/bundle-read.node (src/cli/bundle-read-c/), which the launcher reads the bundle and its cache with. */
const bundleRead = (() => {
  const addon = {
    exports: {} as { readLatin1: (f: string) => string | undefined; mapBuffer: (f: string) => Buffer | undefined },
  };
  process.dlopen(addon, join(REPO, 'dist/bin/bundle-read.node'));
  return addon.exports;
})();

void test('bundle-read: the same text and bytes as fs, and undefined for what is no regular file', () => {
  const text = bundleRead.readLatin1(bundle);
  assert.equal(typeof text, 'string');
  assert.equal(text, readFileSync(bundle, 'latin1'));
  const cache = bundleRead.mapBuffer(`${bundle}.cache`);
  assert.ok(Buffer.isBuffer(cache));
  assert.ok(cache.equals(readFileSync(`${bundle}.cache`)));
  const dir = mkdtempSync(join(tmpdir(), 'bundle-read-'));
  try {
    writeFileSync(join(dir, 'empty'), '');
    for (const file of [join(dir, 'missing'), dir, join(dir, 'empty')]) {
      assert.equal(bundleRead.readLatin1(file), undefined, file);
      assert.equal(bundleRead.mapBuffer(file), undefined, file);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // The mapped cache is the cache V8 takes, for the text the addon read.
  assert.equal(compile(bundle, cache).cachedDataRejected, false);
});

void test('without the addons (a build without a C compiler) the launcher reads with fs and the agent runs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bundle-no-addons-'));
  try {
    // The package's layout without dist/bin/: package.json above dist/ (the agent finds its root by it).
    cpSync(join(REPO, 'package.json'), join(dir, 'package.json'));
    cpSync(join(REPO, 'dist/agent.cjs'), join(dir, 'dist/agent.cjs'));
    cpSync(join(REPO, 'dist/agent'), join(dir, 'dist/agent'), { recursive: true });
    const version = execFileSync(process.execPath, [join(dir, 'dist/agent.cjs'), '--version'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    const expected = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
    assert.equal(version.trim(), expected);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
