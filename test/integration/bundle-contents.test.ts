/**
 * What `npm run build` leaves out of the bundle (src/tools/bundle.mjs): long.js, which protobufjs
 * would require and which compiles a WebAssembly module as it loads. The agent as built must run
 * no WebAssembly at all; a start uses the precompiled settings validators (no ajv at run time);
 * and a start runs no protobuf code before the first message.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAIN, REPO, startAgent, webPort } from '../helpers/agent-process.js';
import { webRequest } from '../helpers/web-client.js';
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

void test('a default start runs none of the protobuf code; the first query loads it', async () => {
  // The generated messages and protobufjs load at the first message (src/core/plugin/load-generated.ts).
  // V8's coverage says which module initialisers ran (bundle-unwrap.mjs names each after its
  // module): one report taken as the ready line is written (it resets the counts), one at exit.
  const dir = mkdtempSync(join(tmpdir(), 'bundle-protobuf-'));
  try {
    const probe = join(dir, 'ready-coverage.cjs');
    writeFileSync(
      probe,
      [
        "const v8 = require('node:v8');",
        'const write = process.stdout.write;',
        'let taken = false;',
        'process.stdout.write = function (chunk, ...rest) {',
        "  if (!taken && String(chunk).includes('agent ready')) { taken = true; v8.takeCoverage(); }",
        '  return write.call(this, chunk, ...rest);',
        '};',
      ].join('\n'),
    );
    const coverage = join(dir, 'coverage');
    const agent = await startAgent({
      ini: defaultSettingsOnFreePort(REPO),
      env: { AGENT_LOG_LEVEL: 'info', NODE_V8_COVERAGE: coverage },
      command: [process.execPath, '-r', probe, MAIN],
    });
    try {
      // The user root's password, generated at this first start (settings/agent.ini sets none).
      const password = readFileSync(join(agent.dir, 'state/web-password'), 'utf8').trim();
      const port = await webPort(agent);
      const answer = await webRequest(`https://127.0.0.1:${port}/api/v1/queries/check_uptime/commands/execute`, {
        user: 'root',
        password,
      });
      assert.equal(answer.status, 200, answer.body);
      assert.match(answer.body, /"result"/);
    } finally {
      assert.equal(await agent.stop(), 0, agent.logs());
    }
    // Named coverage-<pid>-<time>-<sequence>.json: the report at ready, then the one at exit.
    const reports = readdirSync(coverage)
      .filter((name) => name.endsWith('.json'))
      .sort((a, b) => Number(/-(\d+)\.json$/.exec(a)?.[1]) - Number(/-(\d+)\.json$/.exec(b)?.[1]))
      .map((name) => {
        const report = JSON.parse(readFileSync(join(coverage, name), 'utf8')) as {
          result: { url: string; functions: { functionName: string; ranges: { count: number }[] }[] }[];
        };
        const main = report.result.find((script) => script.url.endsWith('main.cjs'));
        assert.ok(main, `${name} covers main.cjs`);
        return (fn: string): boolean =>
          main.functions.some((f) => f.functionName === fn && (f.ranges[0]?.count ?? 0) > 0);
      });
    assert.equal(reports.length, 2, 'a report at the ready line and one at exit');
    const [atReady, afterReady] = reports as [(fn: string) => boolean, (fn: string) => boolean];
    assert.ok(atReady('__init$dist_src_core_plugin_codec_js'), 'the codec module is initialised at start');
    assert.ok(!atReady('__init$dist_src_core_plugin_generated_plugin_js'), 'no generated message class made at start');
    assert.ok(!atReady('__init$node_modules_protobufjs_src_writer_js'), 'protobufjs not loaded at start');
    assert.ok(afterReady('__init$dist_src_core_plugin_generated_plugin_js'), 'the query loaded the generated code');
    assert.ok(afterReady('__init$node_modules_protobufjs_src_writer_js'), 'and protobufjs');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
