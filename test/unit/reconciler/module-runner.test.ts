import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createCore } from '../../../src/core/core-impl.js';
import type { Core } from '../../../src/core/core.js';
import { sink } from '../../../src/log.js';
import { catalogue, controlFor, type CatalogueEntry } from '../../../src/modules/catalogue.js';
import type { AgentControl } from '../../../src/core/control.js';
import type { ModuleFile } from '../../../src/modules/module.js';
import { loadSettingsText } from '../../../src/settings/model/load.js';
import * as throwsInStart from '../../fixtures/modules/throws-in-start/index.js';
import * as neverStarts from '../../fixtures/modules/never-starts/index.js';
import * as noStop from '../../fixtures/modules/no-stop/index.js';
import * as stopThrows from '../../fixtures/modules/stop-throws/index.js';
import * as applyThrows from '../../fixtures/modules/apply-throws/index.js';
import * as healthy from '../../fixtures/modules/healthy/index.js';
import { inRange } from '../../../src/in-range.js';

// The runner reads its time limit when its file loads: set it first, then import.
const TIMEOUT_MS = 150;
process.env.AGENT_MODULE_TIMEOUT_MS = String(TIMEOUT_MS);
const { ModuleRunner, MODULE_TIMEOUT_MS } = await import('../../../src/reconciler/module-runner.js');

sink.consoleLevel = 'silent';

const loaded = loadSettingsText('[/modules]\nCheckHelpers = enabled\n', '/tmp/x/agent.ini');
assert.ok(loaded.ok);
const snapshot = loaded.snapshot;
const core: Core = createCore({ settings: () => snapshot });

const entry = (name: string, load: () => Promise<unknown>): CatalogueEntry => ({
  name,
  title: name,
  description: `fixture ${name}`,
  settings: [],
  queries: [],
  load: load as () => Promise<ModuleFile>,
});

const good = new ModuleRunner(
  entry('Healthy', () => import('../../fixtures/modules/healthy/index.js')),
  core,
);

before(async () => {
  assert.equal(MODULE_TIMEOUT_MS, TIMEOUT_MS);
  assert.equal(await good.start(snapshot), true);
});

after(async () => {
  await good.stop();
});

/** The error-level log lines of a module's runner since `from`. */
function errorsOf(name: string, from: number): string[] {
  return sink
    .entries()
    .slice(from)
    .filter((r) => r.namespace === `agent:module:${name}` && r.level === 'error')
    .map((r) => r.message);
}

async function healthyStillRuns(): Promise<void> {
  assert.equal(good.state, 'running');
  assert.equal(good.loaded, true);
  assert.deepEqual(await core.query('fixture_ok'), {
    command: 'fixture_ok',
    result: 0,
    message: 'OK: healthy',
    perf: [],
  });
}

void test('start() that throws: failed with AGENT_ERR_MODULE_START, what the start took is given back', async () => {
  const from = sink.entries().length;
  const r = new ModuleRunner(
    entry('ThrowsInStart', () => import('../../fixtures/modules/throws-in-start/index.js')),
    core,
  );
  assert.equal(await r.start(snapshot), false);
  assert.equal(r.state, 'failed');
  assert.equal(r.outcome, 'failed');
  assert.equal(r.loaded, false);
  assert.equal(r.error, 'module ThrowsInStart failed to start: cannot open the thing');
  assert.equal(r.failures, 1);
  assert.deepEqual(errorsOf('ThrowsInStart', from), [
    'AGENT_ERR_MODULE_START: module ThrowsInStart failed to start: cannot open the thing',
  ]);
  assert.deepEqual(throwsInStart.events, ['start', 'released']);
  // A second attempt counts a second consecutive failure (for backoff).
  assert.equal(await r.start(snapshot), false);
  assert.equal(r.failures, 2);
  await healthyStillRuns();
});

void test('start() that never settles: failed after the time limit with AGENT_ERR_MODULE_TIMEOUT inside AGENT_ERR_MODULE_START', async () => {
  const from = sink.entries().length;
  const r = new ModuleRunner(
    entry('NeverStarts', () => import('../../fixtures/modules/never-starts/index.js')),
    core,
  );
  const t0 = Date.now();
  assert.equal(await r.start(snapshot), false);
  const took = Date.now() - t0;
  assert.ok(took >= TIMEOUT_MS - 5 && took < 5000, `gave up after ${took} ms`);
  assert.equal(r.state, 'failed');
  assert.equal(
    r.error,
    `module NeverStarts failed to start: module NeverStarts did not finish start within ${TIMEOUT_MS} ms`,
  );
  assert.deepEqual(errorsOf('NeverStarts', from), [`AGENT_ERR_MODULE_START: ${r.error}`]);
  // Its signal aborted: the start gave back what it took, though it never settles.
  assert.deepEqual(neverStarts.events, ['start', 'released aborted=true']);
  await healthyStillRuns();
});

void test('a start that resolves without stop(): failed with AGENT_ERR_MODULE_SHAPE inside AGENT_ERR_MODULE_START', async () => {
  const from = sink.entries().length;
  const r = new ModuleRunner(
    entry('NoStop', () => import('../../fixtures/modules/no-stop/index.js')),
    core,
  );
  assert.equal(await r.start(snapshot), false);
  assert.equal(r.state, 'failed');
  assert.equal(
    r.error,
    'module NoStop failed to start: module NoStop does not have the module shape: the stop of the running module (what start() resolved to) is not a function',
  );
  assert.deepEqual(errorsOf('NoStop', from), [`AGENT_ERR_MODULE_START: ${r.error}`]);
  assert.deepEqual(noStop.events, ['start']);
  await healthyStillRuns();
});

void test('a module with the wrong name is a shape problem', async () => {
  const r = new ModuleRunner(
    entry('WrongName', () => import('../../fixtures/modules/wrong-name/index.js')),
    core,
  );
  assert.equal(await r.start(snapshot), false);
  assert.equal(
    r.error,
    'module WrongName failed to start: module WrongName does not have the module shape: name is "SomethingElse", expected "WrongName"',
  );
  await healthyStillRuns();
});

void test('a module file that cannot be loaded fails the start', async () => {
  const missing = '../../fixtures/modules/does-not-exist/index.js';
  const r = new ModuleRunner(
    entry('Missing', () => import(missing)),
    core,
  );
  assert.equal(await r.start(snapshot), false);
  assert.equal(r.state, 'failed');
  assert.match(r.error ?? '', /^module Missing failed to start: .*does-not-exist/);
  await healthyStillRuns();
});

void test('stop() that throws: failed with AGENT_ERR_MODULE_STOP', async () => {
  const from = sink.entries().length;
  const r = new ModuleRunner(
    entry('StopThrows', () => import('../../fixtures/modules/stop-throws/index.js')),
    core,
  );
  assert.equal(await r.start(snapshot), true);
  assert.equal(r.state, 'running');
  await r.stop();
  assert.equal(r.state, 'failed');
  assert.equal(r.outcome, 'failed');
  assert.equal(r.error, 'module StopThrows failed to stop: socket would not close');
  assert.deepEqual(errorsOf('StopThrows', from), [`AGENT_ERR_MODULE_STOP: ${r.error}`]);
  assert.deepEqual(stopThrows.events, ['start', 'stop']);
  // Stopping again is harmless: the instance is gone, the state stays failed.
  await r.stop();
  assert.equal(r.state, 'failed');
  assert.deepEqual(stopThrows.events, ['start', 'stop']);
  await healthyStillRuns();
});

void test('apply() that throws answers restart and logs AGENT_ERR_MODULE_APPLY; the module keeps running', async () => {
  const from = sink.entries().length;
  const r = new ModuleRunner(
    entry('ApplyThrows', () => import('../../fixtures/modules/apply-throws/index.js')),
    core,
  );
  assert.equal(await r.start(snapshot), true);
  assert.equal(await r.apply(snapshot), 'restart');
  assert.equal(r.state, 'running');
  assert.deepEqual(errorsOf('ApplyThrows', from), [
    'module ApplyThrows failed to apply new settings: bad new settings',
  ]);
  await r.stop();
  assert.equal(r.state, 'stopped');
  assert.deepEqual(applyThrows.events, ['start', 'apply', 'stop']);
  await healthyStillRuns();
});

void test('a healthy module applies in place; apply on a stopped module answers restart', async () => {
  assert.equal(await good.apply(snapshot), 'applied');
  assert.ok(healthy.events.includes('apply'));
  const r = new ModuleRunner(
    entry('Healthy', () => import('../../fixtures/modules/healthy/index.js')),
    core,
  );
  assert.equal(await r.apply(snapshot), 'restart');
  assert.equal(r.state, 'stopped');
  await r.stop();
  assert.equal(r.state, 'stopped');
  await healthyStillRuns();
});

void test('apply() that throws ApplyKeptError answers kept: outcome failed, still running on the previous settings', async () => {
  const r = new ModuleRunner(
    entry('ApplyKept', () => import('../../fixtures/modules/apply-kept/index.js')),
    core,
  );
  assert.equal(await r.start(snapshot), true);
  const before = r.appliedSettings;
  assert.equal(await r.apply(snapshot), 'kept');
  assert.equal(r.state, 'running');
  assert.equal(r.outcome, 'failed');
  assert.match(r.error ?? '', /port 1 is busy \(still running on the previous settings\)/);
  assert.equal(r.appliedSettings, before);
  assert.equal(r.failures, 1);
  await r.stop();
  assert.equal(r.state, 'stopped');
  await healthyStillRuns();
});

void test('a runner the reconciler retries names the next attempt in its one error line, later attempts wait longer', async () => {
  const from = sink.entries().length;
  const r = new ModuleRunner(
    entry('ThrowsInStart', () => import('../../fixtures/modules/throws-in-start/index.js')),
    core,
    { retried: true },
  );
  assert.equal(await r.start(snapshot), false);
  assert.equal(await r.start(snapshot), false);
  const lines = errorsOf('ThrowsInStart', from);
  assert.equal(lines.length, 2);
  assert.match(
    inRange(lines, 0),
    /^AGENT_ERR_MODULE_START: module ThrowsInStart failed to start: cannot open the thing; next retry in 1 s \(\d{4}-\d\d-\d\dT[\d:.]+Z\)$/,
  );
  assert.match(inRange(lines, 1), /; next retry in 2 s \(/);
});

void test('only a module whose catalogue entry asks for it (WEBServer) finds the control interface in its context', async () => {
  const control = { status: () => assert.fail('not called') } as unknown as AgentControl;
  /** Start `from` (a real catalogue entry) with a stand-in module that keeps the context it gets. */
  const contextOf = async (from: CatalogueEntry): Promise<Record<string, unknown>> => {
    let seen: Record<string, unknown> | undefined;
    const file: ModuleFile = {
      agentModule: {
        name: from.name,
        start: async (ctx) => {
          seen = ctx as unknown as Record<string, unknown>;
          return { stop: async () => undefined };
        },
      },
    };
    const r = new ModuleRunner({ ...from, load: async () => file }, core, { contextFor: controlFor(control) });
    assert.equal(await r.start(snapshot), true);
    await r.stop();
    assert.ok(seen);
    return seen;
  };
  for (const e of catalogue()) {
    assert.equal(e.control === true, e.name === 'WEBServer', `${e.name}: control only for WEBServer`);
    const ctx = await contextOf(e);
    if (e.name === 'WEBServer') assert.equal(ctx.control, control);
    else assert.equal('control' in ctx, false, `${e.name} gets no control`);
    // The core every module shares does not carry it either.
    assert.equal('control' in (ctx.core as object), false);
  }
});
