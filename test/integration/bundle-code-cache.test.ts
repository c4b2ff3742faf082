/**
 * The code cache `npm run build` writes beside the bundle (src/tools/bundle.mjs):
 * made by this node, so V8 takes it, and warm: it holds the functions a start
 * of the agent compiled, not only the bundle's top level.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { REPO } from '../helpers/agent-process.js';

const bundle = join(REPO, 'dist/agent/main.cjs');
const launcher = createRequire(import.meta.url)(join(REPO, 'dist/agent.cjs')) as {
  compile: (file: string, cachedData?: Buffer) => import('node:vm').Script;
};
const compile = launcher.compile;

test('the build writes a code cache that this node accepts', () => {
  const script = compile(bundle, readFileSync(`${bundle}.cache`));
  assert.equal(script.cachedDataRejected, false);
});

test('the code cache is warm: larger than the cache of the top level alone', () => {
  const warm = readFileSync(`${bundle}.cache`).length;
  const topLevel = compile(bundle).createCachedData().length;
  assert.ok(warm > topLevel * 1.5, `warm cache ${warm} bytes, top level alone ${topLevel} bytes`);
});
