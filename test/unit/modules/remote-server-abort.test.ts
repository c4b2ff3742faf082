/**
 * RemoteServer honours its start signal as the other listening modules do:
 * a start given up (time limit, agent stopping) before it binds opens
 * nothing and rejects. Port 0: the module reports the port it got.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo } from 'node:net';
import { createCore } from '../../../src/core/core-impl.js';
import { sink } from '../../../src/log.js';
import { agentModule } from '../../../src/modules/remote-server/index.js';
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

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const { port } = server.address() as AddressInfo;
  await new Promise((res) => server.close(res));
  return port;
}

/** Port 0: the system picks; the module says which (listening()). */
function context(signal: AbortSignal, port = 0): Parameters<typeof agentModule.start>[0] {
  const loaded = loadSettingsText(
    `[/modules]\nRemoteServer = enabled\n\n[/settings/remote/server]\nport = ${port}\nbind to = 127.0.0.1\nuse ssl = false\n`,
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
  const port = await freePort();
  await assert.rejects(agentModule.start(context(abort.signal, port)), /did not finish start/);
  assert.equal(await listening(port), false, 'bound to nothing');
});

void test('RemoteServer: with its signal live, the same start listens (and stops)', async () => {
  const mod = await agentModule.start(context(new AbortController().signal));
  const port = mod.listening?.()?.port ?? 0;
  assert.ok(port > 0);
  assert.equal(await listening(port), true);
  await mod.stop();
  assert.equal(await listening(port), false);
});
