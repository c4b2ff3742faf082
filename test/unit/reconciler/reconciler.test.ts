/**
 * The reconciler driven with fixture modules (its catalogue is an option):
 * start order and stop in reverse, retry with backoff, partial results,
 * drift of run-time load/unload, and a module whose start hangs. The
 * settings file's [/modules] names are checked against the real catalogue,
 * so the fixtures borrow real module names; what they do is scripted here.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore } from '../../../src/core/core-impl.js';
import { sink } from '../../../src/log.js';
import type { CatalogueEntry } from '../../../src/modules/catalogue.js';
import type { AgentModule } from '../../../src/modules/module.js';
import { startWithReleases } from '../../../src/modules/releases.js';
import { Reconciler, type ReconcilerOptions, type ValidLoad } from '../../../src/reconciler/reconciler.js';
import { editThroughStore } from '../../../src/settings/store/edit-flow.js';
import { AgentError } from '../../../src/errors.js';
import { loadSettingsFile } from '../../../src/settings/store/load-file.js';
import { waitUntil } from '../../helpers/wait-until.js';

sink.consoleLevel = 'silent';

const dir = mkdtempSync(join(tmpdir(), 'agent-reconciler-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Script {
  /** Starts that throw before one succeeds. */
  failStarts?: number;
  /** The start waits for this before it finishes (a hung start until the test opens it). */
  gate?: Promise<void>;
  /** Milliseconds the start takes. */
  startMs?: number;
  /** The sections the fixture reads (its catalogue entry's settings). */
  sections?: CatalogueEntry['settings'];
}

/**
 * What every fixture did, in order: `start A#1`, `started A#1`, `stop A#1`
 * (#n: the instance), `release A#1` when a start that failed or was given
 * up gave back what it took.
 */
let events: string[] = [];

function fixture(name: string, script: Script = {}): CatalogueEntry {
  let instances = 0;
  let attempts = 0;
  const agentModule: AgentModule = {
    name,
    start: (ctx) =>
      startWithReleases(ctx, async (releases) => {
        const id = `${name}#${++instances}`;
        const aborted = (): string => (ctx.signal.aborted ? ' (aborted)' : '');
        events.push(`start ${id}`);
        releases.add(() => void events.push(`release ${id}${aborted()}`));
        if (++attempts <= (script.failStarts ?? 0)) throw new Error(`attempt ${attempts} fails`);
        if (script.startMs) await new Promise((r) => setTimeout(r, script.startMs));
        if (script.gate) await script.gate;
        events.push(`started ${id}`);
        return {
          async stop() {
            events.push(`stop ${id}${aborted()}`);
          },
        };
      }),
  };
  return {
    name,
    title: name,
    description: `fixture ${name}`,
    settings: script.sections ?? [],
    queries: [],
    load: async () => ({ agentModule }),
  };
}

let fileNo = 0;
/** An edit's write as the agent's does it: the file written, and the load of it that the edit hands the reconciler. */
async function write(file: string, text: string): Promise<ValidLoad> {
  writeFileSync(file, text);
  const loaded = await loadSettingsFile(file);
  assert.ok(loaded.ok, 'the edited file is valid');
  return loaded;
}

function modulesIni(enabled: readonly string[], extra = ''): string {
  return `[/modules]\n${['CheckHelpers', 'CheckSystem', 'CheckDisk', 'CheckNet'].map((m) => `${m} = ${enabled.includes(m) ? 'enabled' : 'disabled'}`).join('\n')}\n${extra}`;
}

/** A reconciler over `modules`, on a settings file enabling `enabled`. */
async function reconciler(
  modules: CatalogueEntry[],
  enabled: readonly string[],
  extra: Partial<ReconcilerOptions> = {},
): Promise<{ r: Reconciler; file: string }> {
  const file = join(dir, `agent-${++fileNo}.ini`);
  writeFileSync(file, modulesIni(enabled));
  const loaded = await loadSettingsFile(file);
  assert.ok(loaded.ok);
  let r: Reconciler | undefined = undefined;
  const core = createCore({ settings: () => (r as Reconciler).settings() });
  r = new Reconciler({
    initial: loaded.snapshot,
    warnings: loaded.warnings,
    core,
    modules,
    backoff: () => 60_000,
    ...extra,
  });
  return { r, file };
}

/** Wait until `cond` holds, at most `ms` (the one wait helper, test/helpers/wait-until.ts). */
const until = (what: string, cond: () => boolean, ms = 10_000): Promise<void> => waitUntil(cond, ms, what);

const state = (r: Reconciler, name: string): string | undefined => r.moduleStatus(name)?.state;

void test('modules start in catalogue order and stop in the reverse of their start order', async () => {
  events = [];
  const { r } = await reconciler(
    [fixture('CheckHelpers'), fixture('CheckSystem'), fixture('CheckDisk'), fixture('CheckNet')],
    ['CheckHelpers', 'CheckSystem', 'CheckDisk'],
  );
  await r.start();
  assert.deepEqual(
    events.filter((e) => e.startsWith('start ')),
    ['start CheckHelpers#1', 'start CheckSystem#1', 'start CheckDisk#1'],
  );
  assert.equal(r.status().lastResult, 'ok');
  assert.deepEqual(
    r.status().modules.map((m) => [m.name, m.state]),
    [
      ['CheckHelpers', 'running'],
      ['CheckSystem', 'running'],
      ['CheckDisk', 'running'],
      ['CheckNet', 'stopped'],
    ],
  );
  events = [];
  await r.stop();
  assert.deepEqual(events, [
    'stop CheckDisk#1 (aborted)',
    'stop CheckSystem#1 (aborted)',
    'stop CheckHelpers#1 (aborted)',
  ]);
});

void test('the stop order follows the order starts finished in, a module loaded later stops first', async () => {
  events = [];
  const { r } = await reconciler(
    [
      fixture('CheckHelpers', { startMs: 120 }),
      fixture('CheckSystem', { startMs: 60 }),
      fixture('CheckDisk'),
      fixture('CheckNet'),
    ],
    ['CheckHelpers', 'CheckSystem', 'CheckDisk'],
  );
  await r.start();
  const finished = events
    .filter((e) => e.startsWith('started '))
    .map((e) => e.slice('started '.length).replace(/#\d+$/, ''));
  await r.setLoaded('CheckNet', true);
  events = [];
  await r.stop();
  assert.deepEqual(
    events.map((e) => e.replace(/^stop (\w+)#\d+.*$/, '$1')),
    ['CheckNet', ...finished.reverse()],
  );
});

void test('a failed start is retried with the backoff policy until it runs; the result is partial meanwhile', async () => {
  events = [];
  const asked: number[] = [];
  const { r } = await reconciler(
    [fixture('CheckHelpers'), fixture('CheckSystem', { failStarts: 2 })],
    ['CheckHelpers', 'CheckSystem'],
    {
      backoff: (failures) => {
        asked.push(failures);
        return 20;
      },
    },
  );
  await r.start();
  assert.equal(r.status().lastResult, 'partial', 'one module failed');
  assert.equal(state(r, 'CheckHelpers'), 'running', 'the other runs');
  assert.equal(r.moduleStatus('CheckSystem')?.outcome, 'failed');
  assert.equal(r.moduleStatus('CheckSystem')?.error, 'module CheckSystem failed to start: attempt 1 fails');
  await until('CheckSystem runs', () => state(r, 'CheckSystem') === 'running');
  assert.equal(r.moduleStatus('CheckSystem')?.outcome, 'loaded');
  assert.equal(r.moduleStatus('CheckSystem')?.error, undefined);
  // Each failure asked the policy with its count of consecutive failures (the log line and the timer).
  assert.deepEqual([...new Set(asked)], [1, 2]);
  assert.deepEqual(
    events.filter((e) => e.includes('CheckSystem')),
    [
      'start CheckSystem#1',
      'release CheckSystem#1',
      'start CheckSystem#2',
      'release CheckSystem#2',
      'start CheckSystem#3',
      'started CheckSystem#3',
    ],
  );
  await r.stop();
});

void test('run-time unload and load show drift until the file changes that module, which then wins', async () => {
  events = [];
  const { r, file } = await reconciler([fixture('CheckHelpers'), fixture('CheckSystem')], ['CheckHelpers']);
  await r.start();
  let s = await r.setLoaded('CheckHelpers', false);
  assert.equal(s.loaded, false);
  assert.equal(s.enabled, true);
  assert.equal(s.drift, true);
  s = await r.setLoaded('CheckSystem', true);
  assert.equal(s.loaded, true);
  assert.equal(s.drift, true);
  assert.deepEqual(
    r
      .status()
      .drift.map((d) => d.module)
      .sort(),
    ['CheckHelpers', 'CheckSystem'],
  );
  // A reload that leaves both modules' lines alone keeps the run-time state.
  writeFileSync(file, `${modulesIni(['CheckHelpers'])}; a comment\n`);
  await r.reload('test');
  assert.equal(r.moduleStatus('CheckHelpers')?.loaded, false);
  assert.equal(r.moduleStatus('CheckSystem')?.loaded, true);
  // The file's own new value for CheckSystem wins over the run-time load.
  writeFileSync(file, modulesIni(['CheckHelpers', 'CheckSystem']));
  await r.reload('test');
  assert.deepEqual(r.moduleStatus('CheckSystem'), {
    ...r.moduleStatus('CheckSystem'),
    loaded: true,
    enabled: true,
    drift: false,
  });
  assert.equal(r.moduleStatus('CheckHelpers')?.drift, true);
  await r.stop();
});

void test('a hung start holds up neither the other modules nor a reload; the start that finishes after its time limit is stopped', async () => {
  events = [];
  let open: () => void = () => undefined;
  const gate = new Promise<void>((res) => (open = res));
  const { r, file } = await reconciler(
    [fixture('CheckHelpers', { gate }), fixture('CheckSystem'), fixture('CheckDisk'), fixture('CheckNet')],
    ['CheckHelpers', 'CheckSystem', 'CheckDisk'],
    { moduleTimeoutMs: 3000 },
  );
  const starting = r.start();
  await until(
    'the other modules run',
    () => state(r, 'CheckSystem') === 'running' && state(r, 'CheckDisk') === 'running',
  );
  assert.equal(state(r, 'CheckHelpers'), 'starting');
  // An edit (as the API makes) applies while CheckHelpers is still starting.
  writeFileSync(file, modulesIni(['CheckHelpers', 'CheckSystem', 'CheckNet']));
  const status = await r.reload('edited through the API');
  assert.equal(state(r, 'CheckHelpers'), 'starting', 'the reload did not wait for the hung start');
  assert.equal(status.modules.find((m) => m.name === 'CheckDisk')?.state, 'stopped');
  assert.equal(status.modules.find((m) => m.name === 'CheckNet')?.state, 'running');
  // So does a run-time load of another module.
  assert.equal((await r.setLoaded('CheckDisk', true)).loaded, true);
  await starting;
  // The start was given up at its time limit: its signal aborted, it gave back what it took.
  assert.ok(events.includes('release CheckHelpers#1 (aborted)'));
  assert.equal(
    r.moduleStatus('CheckHelpers')?.error,
    'module CheckHelpers failed to start: module CheckHelpers did not finish start within 3000 ms',
  );
  // The reload queued a run for CheckHelpers behind the hung one; its settings did not change, so
  // that run and the next reload leave it for its retry (the backoff here: 60 s), no second instance.
  writeFileSync(file, modulesIni(['CheckHelpers', 'CheckSystem']));
  assert.equal((await r.reload('file changed')).modules.find((m) => m.name === 'CheckNet')?.state, 'stopped');
  assert.equal(state(r, 'CheckHelpers'), 'failed');
  assert.ok(!events.includes('start CheckHelpers#2'), 'not retried before its backoff');
  // The first start finishes after all: that running module is stopped, so nothing it opened stays open.
  open();
  await until('the late start is stopped', () => events.includes('stop CheckHelpers#1 (aborted)'));
  assert.ok(events.indexOf('started CheckHelpers#1') < events.lastIndexOf('stop CheckHelpers#1 (aborted)'));
  // A load asked for by name tries it now (a second instance), not at its next retry.
  assert.equal((await r.setLoaded('CheckHelpers', true)).state, 'running');
  assert.ok(events.includes('start CheckHelpers#2'));
  assert.equal(r.moduleStatus('CheckHelpers')?.error, undefined);
  await r.stop();
  assert.ok(events.includes('stop CheckHelpers#2 (aborted)'));
});

void test('stopping the agent gives up a start in progress at once', async () => {
  events = [];
  const gate = new Promise<void>(() => undefined);
  const { r } = await reconciler(
    [fixture('CheckHelpers', { gate }), fixture('CheckSystem')],
    ['CheckHelpers', 'CheckSystem'],
    { moduleTimeoutMs: 600_000 },
  );
  const starting = r.start();
  await until('CheckSystem runs', () => state(r, 'CheckSystem') === 'running');
  await r.stop();
  await starting;
  assert.equal(state(r, 'CheckHelpers'), 'failed');
  assert.equal(r.moduleStatus('CheckHelpers')?.error, 'module CheckHelpers failed to start: the agent is stopping');
  assert.deepEqual(
    events.filter((e) => e.startsWith('stop') || e.startsWith('release')),
    ['release CheckHelpers#1 (aborted)', 'stop CheckSystem#1 (aborted)'],
  );
});

void test('a reload that starts a hanging module holds up neither the next reload nor an API edit', async () => {
  events = [];
  let open: () => void = () => undefined;
  const gate = new Promise<void>((res) => (open = res));
  const { r, file } = await reconciler(
    [fixture('CheckHelpers', { gate }), fixture('CheckSystem'), fixture('CheckDisk'), fixture('CheckNet')],
    ['CheckSystem'],
    { moduleTimeoutMs: 10_000 },
  );
  await r.start();
  // A file change enables CheckHelpers, whose start hangs: that reload waits for it (its own step).
  writeFileSync(file, modulesIni(['CheckSystem', 'CheckHelpers']));
  let firstDone = false;
  const first = r.reload('file changed').then((s) => {
    firstDone = true;
    return s;
  });
  await until('CheckHelpers is starting', () => state(r, 'CheckHelpers') === 'starting');
  // The next reload (SIGHUP) answers once its own module steps are done, while that start still hangs.
  writeFileSync(file, modulesIni(['CheckSystem', 'CheckHelpers', 'CheckDisk']));
  const second = await r.reload('SIGHUP');
  assert.equal(second.modules.find((m) => m.name === 'CheckDisk')?.state, 'running');
  assert.equal(state(r, 'CheckHelpers'), 'starting', 'the reload did not wait for the hung start');
  assert.equal(firstDone, false, 'the reload that started it still waits for it');
  // So does an API edit: one reload, whose steps it waits for once.
  const changed = await editThroughStore(r, 'edited through the API', async (problems) => {
    assert.deepEqual(problems, []);
    return {
      value: 'written',
      written: await write(file, modulesIni(['CheckSystem', 'CheckHelpers', 'CheckDisk', 'CheckNet'])),
    };
  });
  assert.equal(changed, 'written');
  assert.equal(state(r, 'CheckNet'), 'running');
  assert.equal(state(r, 'CheckHelpers'), 'starting', 'the edit did not wait for the hung start');
  assert.deepEqual(
    events.filter((e) => e.startsWith('start CheckHelpers')),
    ['start CheckHelpers#1'],
  );
  // The start finishes: the first reload answers with it running, and nothing tried it twice.
  open();
  assert.equal((await first).modules.find((m) => m.name === 'CheckHelpers')?.state, 'running');
  assert.deepEqual(
    events.filter((e) => e.startsWith('start CheckHelpers')),
    ['start CheckHelpers#1'],
  );
  await r.stop();
});

void test('an API edit waits once for a start it begins, not once per read of the file', async () => {
  events = [];
  const { r, file } = await reconciler(
    [
      fixture('CheckHelpers', { gate: new Promise<void>(() => undefined) }),
      fixture('CheckSystem'),
      fixture('CheckDisk'),
    ],
    ['CheckSystem'],
    { moduleTimeoutMs: 2000 },
  );
  await r.start();
  // The file enables the hanging CheckHelpers behind the agent's back (no reload yet); the edit's read applies it.
  writeFileSync(file, modulesIni(['CheckSystem', 'CheckHelpers']));
  await editThroughStore(r, 'enable CheckDisk', async () => ({
    value: undefined,
    written: await write(file, modulesIni(['CheckSystem', 'CheckHelpers', 'CheckDisk'])),
  }));
  assert.equal(state(r, 'CheckDisk'), 'running');
  // One start of CheckHelpers, given up at its time limit: the edit waited for one time limit, not two.
  assert.deepEqual(
    events.filter((e) => e.startsWith('start CheckHelpers')),
    ['start CheckHelpers#1'],
  );
  assert.equal(
    r.moduleStatus('CheckHelpers')?.error,
    'module CheckHelpers failed to start: module CheckHelpers did not finish start within 2000 ms',
  );
  assert.equal(r.status().lastResult, 'partial');
  await r.stop();
});

void test('parallel edits run one after the other, each over what the one before applied', async () => {
  const { r, file } = await reconciler(
    [fixture('CheckHelpers'), fixture('CheckSystem'), fixture('CheckDisk')],
    ['CheckSystem'],
  );
  await r.start();
  // Each edit writes the modules in force plus its own: run side by side, the second would drop the first.
  const enable = (name: string): Promise<string> =>
    editThroughStore(r, `enable ${name}`, async () => {
      const on = Object.entries(r.settings().modules).filter(([, v]) => v);
      return { value: name, written: await write(file, modulesIni([...on.map(([m]) => m), name])) };
    });
  assert.deepEqual(await Promise.all([enable('CheckHelpers'), enable('CheckDisk')]), ['CheckHelpers', 'CheckDisk']);
  assert.equal(state(r, 'CheckHelpers'), 'running');
  assert.equal(state(r, 'CheckDisk'), 'running');
  assert.equal(r.status().lastResult, 'ok');
  await r.stop();
});

void test('an edit refused for an invalid file writes nothing and reports the problems', async () => {
  const { r, file } = await reconciler([fixture('CheckHelpers'), fixture('CheckSystem')], ['CheckSystem']);
  await r.start();
  writeFileSync(file, '[/modules]\nCheckSystem = maybe\n');
  let seen: readonly unknown[] = [];
  await assert.rejects(
    editThroughStore(r, 'enable CheckHelpers', async (problems) => {
      seen = problems;
      throw new Error('refused');
    }),
    /refused/,
  );
  assert.equal(seen.length > 0, true);
  assert.equal(r.status().lastResult, 'invalid');
  assert.equal(state(r, 'CheckSystem'), 'running', 'the last good settings stay');
  await r.stop();
});

void test('an edit whose file is overwritten by a bad hand save before its reload answers a conflict', async () => {
  const { r, file } = await reconciler([fixture('CheckHelpers'), fixture('CheckSystem')], ['CheckSystem']);
  await r.start();
  await assert.rejects(
    editThroughStore(r, 'enable CheckHelpers', async () => {
      const written = await write(file, modulesIni(['CheckSystem', 'CheckHelpers']));
      // A hand save lands between the edit's write and the reload that applies it.
      writeFileSync(file, '[/modules]\nCheckSystem = maybe\n');
      return { value: 'enabled', written };
    }),
    (err: unknown) => err instanceof AgentError && err.code === 'AGENT_ERR_SETTINGS_CONFLICT',
  );
  assert.equal(r.status().lastResult, 'invalid');
  assert.equal(state(r, 'CheckSystem'), 'running', 'the last good settings stay');
  assert.notEqual(state(r, 'CheckHelpers'), 'running', 'the edit is not in force');
  await r.stop();
});

void test('a failed module is retried on its backoff, not by an unrelated reload; a change of its own settings retries it at once', async () => {
  events = [];
  const { r, file } = await reconciler(
    [fixture('CheckHelpers'), fixture('CheckNet', { failStarts: 1, sections: ['/settings/net'] })],
    ['CheckNet'],
  );
  await r.start();
  assert.equal(state(r, 'CheckNet'), 'failed');
  // Another module's change: the failed one waits for its retry (60 s here).
  writeFileSync(file, modulesIni(['CheckNet', 'CheckHelpers']));
  await r.reload('file changed');
  assert.equal(state(r, 'CheckHelpers'), 'running');
  assert.equal(state(r, 'CheckNet'), 'failed');
  assert.deepEqual(
    events.filter((e) => e.startsWith('start CheckNet')),
    ['start CheckNet#1'],
  );
  // So does a reload of the unchanged file and an API edit of another module.
  await r.reload('requested');
  await editThroughStore(r, 'disable CheckHelpers', async () => ({
    value: undefined,
    written: await write(file, modulesIni(['CheckNet'])),
  }));
  assert.equal(state(r, 'CheckHelpers'), 'stopped');
  assert.deepEqual(
    events.filter((e) => e.startsWith('start CheckNet')),
    ['start CheckNet#1'],
  );
  // Its own settings changed: tried at once.
  writeFileSync(file, modulesIni(['CheckNet'], '[/settings/net]\nmax concurrent = 4\n'));
  const s = await r.reload('file changed');
  assert.equal(s.modules.find((m) => m.name === 'CheckNet')?.state, 'running');
  assert.deepEqual(
    events.filter((e) => e.startsWith('start CheckNet')),
    ['start CheckNet#1', 'start CheckNet#2'],
  );
  assert.equal(s.lastResult, 'ok');
  await r.stop();
});

void test('a file event on files byte-identical to the applied tree loads nothing (an edit is applied from its own check); SIGHUP loads', async () => {
  const { r, file } = await reconciler([fixture('CheckHelpers'), fixture('CheckSystem')], ['CheckSystem']);
  await r.start();
  // A ${file:} secret: the files do not hold its value, so only a load sees it change.
  const secret = join(dir, `secret-${fileNo}`);
  writeFileSync(secret, 'first-secret-value');
  const withSecret = modulesIni(
    ['CheckSystem', 'CheckHelpers'],
    `[/settings/default]\npassword = \${file:${secret}}\n`,
  );
  await editThroughStore(r, 'enable CheckHelpers', async () => ({
    value: undefined,
    written: await write(file, withSecret),
  }));
  assert.equal(state(r, 'CheckHelpers'), 'running');
  assert.ok(r.settings().secretValues.includes('first-secret-value'));
  writeFileSync(secret, 'second-secret-value');
  // The watcher's report of the edit's own write (or a touch): the files are as applied, nothing is loaded.
  const echo = await r.reload('file change', { fileEvent: true });
  assert.equal(echo.lastResult, 'ok');
  assert.ok(r.settings().secretValues.includes('first-secret-value'), 'not loaded: the old secret is still in force');
  // A change of the file itself is loaded, as is every SIGHUP.
  await r.reload('SIGHUP');
  assert.ok(r.settings().secretValues.includes('second-secret-value'), 'SIGHUP loads and reads the secret again');
  await r.stop();
});

void test('one change stream: triggers that arrive while a reload reads are one reload after it, every reason recorded', async () => {
  const { r, file } = await reconciler([fixture('CheckHelpers'), fixture('CheckSystem')], ['CheckSystem']);
  await r.start();
  const before = r.status().reloads.ok;
  writeFileSync(file, modulesIni(['CheckSystem', 'CheckHelpers']));
  // The first reload starts at once; the next three arrive while it reads the file (its stable read).
  const first = r.reload('file change', { fileEvent: true });
  await new Promise((res) => setImmediate(res));
  const later = [r.reload('file change', { fileEvent: true }), r.reload('SIGHUP'), r.reload('requested')];
  const [one, ...rest] = await Promise.all([first, ...later]);
  assert.equal(one.lastResult, 'ok');
  assert.deepEqual(one.lastReasons, ['file change']);
  assert.equal(state(r, 'CheckHelpers'), 'running');
  assert.equal(r.status().reloads.ok, before + 2, 'two reloads for four triggers');
  for (const s of rest) assert.deepEqual(s.lastReasons, ['file change', 'SIGHUP', 'requested']);
  await r.stop();
});
