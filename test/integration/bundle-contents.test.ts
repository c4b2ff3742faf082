/**
 * What `npm run build` leaves out of the bundle (src/tools/bundle.mjs): long.js, which protobufjs
 * would require and which compiles a WebAssembly module as it loads. The agent as built must run
 * no WebAssembly at all.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../helpers/agent-process.js';

void test('the bundle holds no WebAssembly and no long.js', () => {
  const text = ['main.cjs', 'on-demand.cjs']
    .map((name) => readFileSync(join(REPO, 'dist/agent', name), 'latin1'))
    .join('\n');
  assert.ok(text.length > 100_000, 'the bundle is built');
  assert.doesNotMatch(text, /WebAssembly\./, 'no WebAssembly module is compiled by the agent');
  assert.doesNotMatch(text, /node_modules\/long\//, 'long.js is not bundled');
  assert.match(text, /node_modules\/protobufjs\/src\/util\/minimal\.js/, 'protobufjs is bundled');
});
