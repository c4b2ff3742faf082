/**
 * The running agent as a process: modules follow the settings file when it
 * is edited in place, replaced by rename, broken and fixed, deleted and
 * re-created; SIGHUP reloads; SIGTERM stops modules in the reverse of their
 * start order and exits 0.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { startAgent, replaceFile, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { inRange } from '../../src/in-range.js';

const BASE = (helpers: boolean, extra = ''): string => `; test settings
[/modules]
CheckHelpers = ${helpers ? 'enabled' : 'disabled'}
CheckExternalScripts = disabled
${extra}`;

let agent: AgentProcess;
const made = new Teardown();
after(() => made.close());

before(async () => {
  agent = made.add(await startAgent({ ini: BASE(true) }), (a) => a.stop());
});

void test('starts with the modules the file enables', async () => {
  await agent.waitForLog(/module CheckHelpers started/);
  assert.match(agent.logs(), /agent ready: .*modules: CheckHelpers/);
});

void test('an in-place edit unloads a module, a rename loads it again', async () => {
  let m = agent.mark();
  writeFileSync(agent.settingsFile, BASE(false));
  await agent.waitForLog(/CheckHelpers: unload \(disabled in \[\/modules\]\)/, 10_000, m);
  m = agent.mark();
  replaceFile(agent.settingsFile, BASE(true));
  await agent.waitForLog(/CheckHelpers: load \(enabled in \[\/modules\]\)/, 10_000, m);
});

void test('a broken file keeps the last good state and logs each problem with its line', async () => {
  const m = agent.mark();
  replaceFile(agent.settingsFile, BASE(false, '[/settings/WEB/server]\nport = nope\n'));
  const hit = await agent.waitForLog(/settings rejected: (\d+) problem/, 10_000, m);
  assert.equal(hit[1], '1');
  await agent.waitForLog(
    /AGENT_ERR_VALUE_INVALID \[\/settings\/WEB\/server\] port: "nope" must be .*\(.*agent\.ini:6\)/,
    5_000,
    m,
  );
  assert.doesNotMatch(agent.logs().slice(m), /CheckHelpers: unload/, 'nothing of the broken file is applied');
});

void test('fixing the file applies it', async () => {
  const m = agent.mark();
  replaceFile(agent.settingsFile, BASE(false));
  await agent.waitForLog(/CheckHelpers: unload/, 10_000, m);
});

void test('SIGHUP reloads the file: a change no watcher event announced applies on the signal', async () => {
  // A second agent whose watcher waits 10 minutes after an in-place write, so
  // only the signal can make it read the change before then.
  const quiet = await startAgent({ ini: BASE(true), env: { AGENT_RELOAD_DEBOUNCE_MS: '600000' } });
  try {
    await quiet.waitForLog(/module CheckHelpers started/);
    const m = quiet.mark();
    writeFileSync(quiet.settingsFile, BASE(false));
    // The watcher saw the write: it only armed its long debounce.
    await quiet.waitForLog(/agent\.ini: (change|rename); reading it in 600000 ms unless more follows/, 10_000, m);
    assert.doesNotMatch(quiet.logs().slice(m), /reconciling/, 'the watcher did not reload yet');
    quiet.proc.kill('SIGHUP');
    await quiet.waitForLog(/SIGHUP: reloading settings/, 5_000, m);
    await quiet.waitForLog(/settings changed \(SIGHUP\); reconciling/, 5_000, m);
    await quiet.waitForLog(/CheckHelpers: unload \(disabled in \[\/modules\]\)/, 5_000, m);
  } finally {
    await quiet.stop();
  }
});

void test('a deleted file keeps the running state; re-created, it applies', async () => {
  let m = agent.mark();
  rmSync(agent.settingsFile);
  await agent.waitForLog(/settings rejected: 1 problem/, 10_000, m);
  m = agent.mark();
  writeFileSync(agent.settingsFile, BASE(true));
  await agent.waitForLog(/CheckHelpers: load/, 10_000, m);
});

void test('a burst of writes is debounced into few reloads and ends in the last state', async () => {
  const m = agent.mark();
  for (let i = 0; i < 10; i++) writeFileSync(agent.settingsFile, BASE(i % 2 === 0 ? false : true));
  writeFileSync(agent.settingsFile, BASE(false));
  await agent.waitForLog(/CheckHelpers: unload/, 10_000, m);
  // Proof that the agent is past the burst: a SIGHUP's reload runs after every reload queued before it.
  const hup = agent.mark();
  agent.proc.kill('SIGHUP');
  await agent.waitForLog(/settings unchanged \(SIGHUP\); reconciling/, 10_000, hup);
  const reloads =
    agent
      .logs()
      .slice(m, hup)
      .match(/reconciling/g)?.length ?? 0;
  assert.ok(reloads >= 1 && reloads <= 3, `expected 1-3 reloads, saw ${reloads}`);
  assert.doesNotMatch(agent.logs().slice(agent.logs().lastIndexOf('CheckHelpers: unload')), /CheckHelpers: load/);
});

void test('SIGTERM stops several modules in the reverse of their start order and exits 0', async () => {
  const several = (extra: string): string =>
    BASE(true, `CheckSystem = enabled\nCheckDisk = enabled\nCheckNet = enabled\n${extra}`);
  const m = agent.mark();
  replaceFile(agent.settingsFile, several(''));
  for (const name of ['CheckHelpers', 'CheckSystem', 'CheckDisk', 'CheckNet'])
    await agent.waitForLog(new RegExp(`${name}: load`), 10_000, m);
  const code = await agent.stop({ keepDir: false });
  assert.equal(code, 0);
  const all = agent.logs();
  const started = [...all.matchAll(/module (\w+) started/g)].map((x) => inRange(x, 1));
  // The latest start of each module that was running at the end.
  const order: string[] = [];
  for (const name of started) {
    const i = order.indexOf(name);
    if (i >= 0) order.splice(i, 1);
    order.push(name);
  }
  const stopping = all.slice(all.indexOf('SIGTERM: stopping'));
  const stopped = [...stopping.matchAll(/module (\w+) stopped/g)].map((x) => x[1]);
  assert.equal(stopped.length, 4, `four modules stopped: ${stopped.join(', ')}`);
  assert.deepEqual(stopped, order.filter((n) => stopped.includes(n)).reverse());
  assert.match(stopping, /agent stopped/);
});

void test('invalid settings at start: every problem printed, exit 1', async () => {
  const bad = await startAgent({ ini: '[/modules]\nCheckHelpres = 1\n[/settings/nope]\n', waitReady: false });
  const code = await bad.exited;
  await bad.stop();
  assert.equal(code, 1);
  assert.match(bad.logs(), /agent\.ini:2:1: error AGENT_ERR_MODULE_UNKNOWN/);
  assert.match(bad.logs(), /agent\.ini:3:2: error AGENT_ERR_SECTION_UNKNOWN/);
});
