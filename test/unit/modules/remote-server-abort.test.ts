/**
 * RemoteServer honours its start signal as the other listening modules do:
 * a start given up (time limit, agent stopping) before it binds opens
 * nothing; the module runner then stops that instance.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect } from 'node:net';
import { createCore } from '../../../src/core/core-impl.js';
import { sink } from '../../../src/log.js';
import { createModule } from '../../../src/modules/remote-server/index.js';
import { MODULE_SECTIONS } from '../../../src/settings/module-table.js';
import { moduleView } from '../../../src/settings/module-view.js';
import { loadSettingsText } from '../../../src/settings/load.js';

sink.consoleLevel = 'silent';

/** A loopback port free a moment ago. */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((res) => srv.listen(0, '127.0.0.1', res));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((res) => srv.close(() => res()));
  return port;
}

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

async function context(signal: AbortSignal): Promise<{ port: number; ctx: Parameters<ReturnType<typeof createModule>['start']>[0] }> {
  const port = await freePort();
  const loaded = loadSettingsText(`[/modules]\nRemoteServer = enabled\n\n[/settings/remote/server]\nport = ${port}\nbind to = 127.0.0.1\nuse ssl = false\n`, '/tmp/remote-abort/agent.ini');
  assert.ok(loaded.ok, JSON.stringify(loaded.problems));
  const snapshot = loaded.snapshot;
  const core = createCore({ settings: () => snapshot });
  const sections = MODULE_SECTIONS.RemoteServer;
  return { port, ctx: { name: 'RemoteServer', settings: moduleView(sections, snapshot, 'RemoteServer'), log: sink.logger('test:remote-server'), signal, core: core.forModule(sections) } };
}

test('RemoteServer: a start whose signal is aborted opens no listener', async () => {
  const abort = new AbortController();
  abort.abort(new Error('module RemoteServer did not finish start within 15000 ms'));
  const { port, ctx } = await context(abort.signal);
  const mod = createModule();
  try {
    await assert.rejects(mod.start(ctx), /did not finish start/);
    assert.equal(await listening(port), false);
  } finally {
    await mod.stop();
  }
});

test('RemoteServer: with its signal live, the same start listens (and stops)', async () => {
  const { port, ctx } = await context(new AbortController().signal);
  const mod = createModule();
  await mod.start(ctx);
  assert.equal(await listening(port), true);
  await mod.stop();
  assert.equal(await listening(port), false);
});
