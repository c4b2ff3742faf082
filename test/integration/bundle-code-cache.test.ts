/**
 * The code cache `npm run build` writes beside the bundle (src/tools/bundle.mjs):
 * made by this node for each bundle file (main.cjs, on-demand.cjs), so V8 takes
 * it, and warm for main.cjs: it holds the functions a start of the agent
 * compiled, not only the bundle's top level.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { REPO } from '../helpers/agent-process.js';

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
