/**
 * What `npm run build` leaves out of the bundle (src/tools/bundle.mjs): long.js, which protobufjs
 * would require and which compiles a WebAssembly module as it loads. The agent as built must run
 * no WebAssembly at all; and a start uses the precompiled settings validators (no ajv at run time).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

void test('the bundle validates settings with the precompiled validators: ajv is never loaded', () => {
  // The build writes the embedded schemas' hash into the bundle (__bundleSchemaHash); a wrong one
  // would compile every validator with ajv at run time, which this would show.
  const dir = mkdtempSync(join(tmpdir(), 'bundle-validators-'));
  try {
    const probe = join(dir, 'probe.cjs');
    writeFileSync(
      probe,
      "process.on('exit', () => process.stderr.write('AJV ' + Object.keys(require.cache).filter((k) => k.includes('/node_modules/ajv/')).length + '\\n'));\n",
    );
    const r = spawnSync(
      process.execPath,
      [
        '-r',
        probe,
        join(REPO, 'dist/agent.cjs'),
        'settings',
        'validate',
        '--settings',
        join(REPO, 'settings/agent.ini'),
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(r.status, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /^AJV 0$/m, r.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
