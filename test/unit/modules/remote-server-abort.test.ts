/**
 * RemoteServer honours its start signal as the other listening modules do:
 * a start given up (time limit, agent stopping) before it binds opens
 * nothing; the module runner then stops that instance. Port 0: the module
 * reports the port it got.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { createCore } from '../../../src/core/core-impl.js';
import { sink } from '../../../src/log.js';
import { createModule } from '../../../src/modules/remote-server/index.js';
import { MODULE_SECTIONS } from '../../../src/settings/module-table.js';
import { moduleView } from '../../../src/settings/module-view.js';
import { loadSettingsText } from '../../../src/settings/load.js';

sink.consoleLevel = 'silent';

/** True when something accepts connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      res(true);
    });
    s.once('error', () => res(false));
  });
}

/** Port 0: the system picks; the module says which (listening()). */
function context(signal: AbortSignal): Parameters<ReturnType<typeof createModule>['start']>[0] {
  const loaded = loadSettingsText(
    `[/modules]\nRemoteServer = enabled\n\n[/settings/remote/server]\nport = 0\nbind to = 127.0.0.1\nuse ssl = false\n`,
    '/tmp/remote-abort/agent.ini',
  );
  assert.ok(loaded.ok, JSON.stringify(loaded.problems));
  const snapshot = loaded.snapshot;
  const core = createCore({ settings: () => snapshot });
  const sections = MODULE_SECTIONS.RemoteServer;
  return {
    name: 'RemoteServer',
    settings: moduleView(sections, snapshot, 'RemoteServer'),
    log: sink.logger('test:remote-server'),
    signal,
    core: core.forModule(sections),
  };
}

void test('RemoteServer: a start whose signal is aborted opens no listener', async () => {
  const abort = new AbortController();
  abort.abort(new Error('module RemoteServer did not finish start within 15000 ms'));
  const mod = createModule();
  try {
    await assert.rejects(mod.start(context(abort.signal)), /did not finish start/);
    assert.equal(mod.listening?.(), undefined, 'bound to nothing');
  } finally {
    await mod.stop();
  }
});

void test('RemoteServer: with its signal live, the same start listens (and stops)', async () => {
  const mod = createModule();
  await mod.start(context(new AbortController().signal));
  const port = mod.listening?.()?.port ?? 0;
  assert.ok(port > 0);
  assert.equal(await listening(port), true);
  await mod.stop();
  assert.equal(await listening(port), false);
});
