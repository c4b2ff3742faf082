/**
 * The two bundle files of `npm run build` (src/tools/bundle-split.mjs): main.cjs holds what a
 * start on the default settings runs, so such a start reads no other file; on-demand.cjs holds the
 * rest and takes every module main.cjs holds from main.cjs (one AgentError class, one logger),
 * never a copy of its own; an agent that enables a module of on-demand.cjs starts as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, startAgent } from '../helpers/agent-process.js';
import { defaultSettingsOnFreePort } from '../bench/settings-file.js';

const agentDir = join(REPO, 'dist/agent');
const defaults = defaultSettingsOnFreePort(REPO);

void test('a start on the default settings needs no on-demand.cjs', async () => {
  // The package as built, less on-demand.cjs.
  const tree = mkdtempSync(join(tmpdir(), 'bundle-split-'));
  try {
    mkdirSync(join(tree, 'dist/agent'), { recursive: true });
    copyFileSync(join(REPO, 'package.json'), join(tree, 'package.json'));
    copyFileSync(join(REPO, 'dist/agent.cjs'), join(tree, 'dist/agent.cjs'));
    for (const name of ['main.cjs', 'main.cjs.cache'])
      copyFileSync(join(agentDir, name), join(tree, 'dist/agent', name));
    // What the build makes beside the bundle: the addons, and node_modules (selfsigned).
    symlinkSync(join(REPO, 'dist/bin'), join(tree, 'dist/bin'));
    symlinkSync(join(REPO, 'node_modules'), join(tree, 'node_modules'));
    const agent = await startAgent({ ini: defaults, command: [process.execPath, join(tree, 'dist/agent.cjs')] });
    try {
      assert.match(agent.logs(), /agent ready: .*modules: CheckHelpers, CheckSystem, CheckDisk, WEBServer/);
    } finally {
      assert.equal(await agent.stop(), 0, agent.logs());
    }
    // A command whose code is in on-demand.cjs says so and fails, rather than running a copy.
    assert.throws(
      () => execFileSync(process.execPath, [join(tree, 'dist/agent.cjs'), 'settings', 'schema'], { stdio: 'pipe' }),
      /on-demand\.cjs/,
    );
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
});

void test('on-demand.cjs holds no copy of a module main.cjs holds', () => {
  const main = readFileSync(join(agentDir, 'main.cjs'), 'latin1');
  const onDemand = readFileSync(join(agentDir, 'on-demand.cjs'), 'latin1');
  assert.match(main, /\bAgentError=class\b/);
  assert.doesNotMatch(onDemand, /\bAgentError=class\b/);
  assert.match(onDemand, /__agentMain\("dist\/src\/errors\.js"\)/, 'on-demand.cjs takes errors.js from main.cjs');
  // The NRPE server's code is in on-demand.cjs only.
  assert.match(onDemand, /AGENT_ERR_NRPE|nrpe/i);
  assert.ok(main.length > 3 * 100_000 && onDemand.length > 100_000, 'both files are built');
});

void test('a module of on-demand.cjs starts, with the classes of main.cjs', async () => {
  const ini = `${defaults.replace(/^WEBServer = enabled$/m, '$&\nRemoteServer = enabled')}
[/settings/remote/server]
port = 0
bind to = 127.0.0.1
use ssl = 0
allowed hosts = 127.0.0.1
`;
  const agent = await startAgent({ ini });
  try {
    assert.match(agent.logs(), /agent ready: .*RemoteServer/);
  } finally {
    assert.equal(await agent.stop(), 0, agent.logs());
  }
});
