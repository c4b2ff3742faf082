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
import { MAIN, REPO, startAgent } from '../helpers/agent-process.js';
import { defaultSettingsOnFreePort } from '../bench/settings-file.js';

void test('the bundle holds no WebAssembly and no long.js', () => {
  const text = ['main.cjs', 'on-demand.cjs']
    .map((name) => readFileSync(join(REPO, 'dist/agent', name), 'latin1'))
    .join('\n');
  assert.ok(text.length > 100_000, 'the bundle is built');
  assert.doesNotMatch(text, /WebAssembly\./, 'no WebAssembly module is compiled by the agent');
  // A module's path is in the name of its initialiser (__init$node_modules_protobufjs_…, src/tools/bundle-unwrap.mjs).
  assert.doesNotMatch(text, /node_modules[/_]long[/_]/, 'long.js is not bundled');
  assert.match(text, /node_modules[/_]protobufjs[/_]src[/_]util[/_]minimal[._]js/, 'protobufjs is bundled');
});

void test('the bundle validates settings with the precompiled validators: ajv is never loaded', () => {
  // The build writes the embedded schemas' hash into the bundle (__bundleSchemaHash); a wrong one
  // would compile every validator with ajv at run time, which this would show.
  const dir = mkdtempSync(join(tmpdir(), 'bundle-validators-'));
  try {
    const probe = ajvProbe(dir);
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

void test('the bundled agent starts with the precompiled request-body validators: ajv is never loaded', async () => {
  // The build writes the body schemas' hash into the bundle (__bundleBodySchemasHash), as it does the
  // settings schemas'; a wrong one would compile the body validators with ajv as web/bodies.js loads.
  const dir = mkdtempSync(join(tmpdir(), 'bundle-bodies-'));
  try {
    const probe = ajvProbe(dir);
    const agent = await startAgent({
      ini: defaultSettingsOnFreePort(REPO),
      env: { AGENT_LOG_LEVEL: 'info' },
      command: [process.execPath, '-r', probe, MAIN],
    });
    assert.match(agent.logs(), /modules: .*WEBServer/, 'the web module, which loads web/bodies.js, started');
    // The probe writes at exit; 'close' comes after the last of the output.
    const closed = new Promise((resolve) => agent.proc.once('close', resolve));
    agent.proc.kill('SIGTERM');
    await closed;
    await agent.stop();
    assert.match(agent.logs(), /^AJV 0$/m, agent.logs());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A file for `node -r` that writes `AJV <n>` to stderr at exit: how many of ajv's files the process loaded. */
function ajvProbe(dir: string): string {
  const probe = join(dir, 'probe.cjs');
  writeFileSync(
    probe,
    "process.on('exit', () => process.stderr.write('AJV ' + Object.keys(require.cache).filter((k) => k.includes('/node_modules/ajv/')).length + '\\n'));\n",
  );
  return probe;
}
