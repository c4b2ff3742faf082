/**
 * The build's rewrites of esbuild's output (src/tools/bundle-unwrap.mjs): each module's initialiser
 * passed as a function, not as the one method of an object literal, and each export table defined
 * at its first read. A program bundled by esbuild as the build does it runs the same rewritten:
 * modules initialised once and in the same order, an import() reading the namespace, a CommonJS
 * package, an initialiser that throws (again at the second call, as esbuild's helper does), a
 * stack trace naming the module. And the agent as built carries the rewrites.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO } from '../helpers/agent-process.js';

interface Unwrapped {
  text: string;
  modules: number;
  lazyTables: number;
}
type Unwrap = (text: string, ts: unknown) => Unwrapped;

const tools = pathToFileURL(join(REPO, 'src/tools/bundle-unwrap.mjs')).href;

/** A small program of ES modules and one CommonJS file, bundled as src/tools/bundle.mjs bundles the agent. */
async function bundledProgram(dir: string): Promise<string> {
  const files: Record<string, string> = {
    'main.js': `
      import { order, log } from './order.js';
      import { value } from './eager.js';
      import cjs from './legacy.cjs';
      log('main');
      (async () => {
        const lazy = await import('./lazy.js');
        const again = await import('./lazy.js');
        console.log(JSON.stringify({ order, value, cjs, lazy: lazy.answer(), same: lazy === again, keys: Object.keys(lazy).sort() }));
        try { await import('./broken.js'); } catch (e) { console.log('first: ' + e.message); }
        try { await import('./broken.js'); } catch (e) { console.log('second: ' + e.message); }
        try { await import('./broken2.js'); } catch (e) { console.log('named: ' + e.stack.includes('__init$broken2_js')); }
      })();
    `,
    'order.js': `export const order = []; export function log(name) { order.push(name); }`,
    'eager.js': `import { log } from './order.js'; log('eager'); export const value = 42;`,
    'lazy.js': `import { log } from './order.js'; import { value } from './eager.js'; log('lazy'); export function answer() { return value + 1; } export const kind = 'lazy';`,
    'broken.js': `import { log } from './order.js'; log('broken'); throw new Error('broken at init');`,
    'broken2.js': `throw new Error('broken2');`,
    'legacy.cjs': `module.exports = { legacy: true, n: 7 };`,
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const { build } = await import('esbuild');
  const out = await build({
    entryPoints: [join(dir, 'main.js')],
    // Module paths relative to the program's folder, as the agent's are to the repository.
    absWorkingDir: dir,
    bundle: true,
    write: false,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    supported: { 'dynamic-import': false },
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'silent',
  });
  const [file] = out.outputFiles;
  assert.ok(file, 'esbuild wrote the bundle');
  return file.text;
}

function run(dir: string, name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return execFileSync(process.execPath, [file], { encoding: 'utf8' });
}

void test('a program bundled by esbuild runs the same with its initialisers and export tables rewritten', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bundle-unwrap-'));
  try {
    mkdirSync(join(dir, 'out'));
    const original = await bundledProgram(dir);
    const { unwrapBundle } = (await import(tools)) as { unwrapBundle: Unwrap };
    const { default: ts } = (await import('typescript')) as { default: unknown };
    const rewritten = unwrapBundle(original, ts);
    assert.ok(rewritten.modules >= 5, `initialisers rewritten: ${rewritten.modules}`);
    assert.ok(rewritten.lazyTables >= 1, `export tables made lazy: ${rewritten.lazyTables}`);
    assert.doesNotMatch(rewritten.text, /__esm\(\{"/, 'no initialiser is an object literal any more');
    assert.match(rewritten.text, /function __exports\$lazy_exports\(\)/);

    const before = run(dir, 'out/original.cjs', original);
    const after = run(dir, 'out/rewritten.cjs', rewritten.text);
    const lines = after.trim().split('\n');
    // The same output, but the stack trace line, which only the rewritten one names by the module.
    assert.deepEqual(lines.slice(0, 3), before.trim().split('\n').slice(0, 3));
    const result = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    assert.deepEqual(result.order, ['eager', 'main', 'lazy']);
    assert.deepEqual(result.cjs, { legacy: true, n: 7 });
    assert.equal(result.lazy, 43);
    assert.equal(result.same, true);
    assert.deepEqual(result.keys, ['answer', 'kind']);
    assert.equal(lines[1], 'first: broken at init');
    assert.equal(lines[2], 'second: broken at init');
    assert.equal(lines[3], 'named: true');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('a helper written otherwise than esbuild 0.28 writes it stops the build with what to do', async () => {
  const { unwrapBundle } = (await import(tools)) as { unwrapBundle: Unwrap };
  const { default: ts } = (await import('typescript')) as { default: unknown };
  assert.throws(
    () => unwrapBundle('var __esm=(fn,res)=>function(){return fn&&(res=fn(fn=0)),res};', ts),
    /esbuild's module helper no longer calls its initialiser as .*; update src\/tools\/bundle-unwrap\.mjs/,
  );
});

void test('the agent as built has its initialisers and export tables rewritten', () => {
  for (const name of ['main.cjs', 'on-demand.cjs']) {
    const text = readFileSync(join(REPO, 'dist/agent', name), 'latin1');
    assert.doesNotMatch(text, /__(esm|commonJS)\(\{"/, `${name}: no initialiser is an object literal`);
    assert.doesNotMatch(
      text,
      /__getOwnPropNames\((fn|cb)\)\[0\]/,
      `${name}: the helpers call the initialiser directly`,
    );
    assert.match(text, /function __init\$dist_src_errors_js\(\)|__agentMain\("dist\/src\/errors\.js"\)/);
  }
  const main = readFileSync(join(REPO, 'dist/agent/main.cjs'), 'latin1');
  assert.match(main, /function __exports\$\w+_exports\(\)\{__exports\$\w+_exports=__noop;__export\(/);
  assert.doesNotMatch(main, /(?<!=__noop);__export\(\w+_exports,/, 'no export table is defined at the top level');
});
