/**
 * Stopping the web server through its own API: unload, disable, or a PUT
 * with loaded=false for WEBServer is answered 202 before the control call
 * starts, so the client gets its answer although the listener closes. The
 * in-test control closes the https server the way the WEBServer module
 * does (close, then cut the connections still open).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { createCore } from '../../../../src/core/core-impl.js';
import type { AgentControl, ModuleStatus, ReconcilerStatus } from '../../../../src/core/control.js';
import { loadSettingsText } from '../../../../src/settings/model/load.js';
import { moduleView } from '../../../../src/settings/model/module-view.js';
import { MODULE_SECTIONS } from '../../../../src/settings/model/module-table.js';
import { buildApp } from '../../../../src/web/app.js';
import { webRequest, type WebRequestOptions, type WebResponse } from '../../../helpers/web-client.js';

const pems = generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', algorithm: 'sha256' });

function status(name: string, loaded: boolean): ModuleStatus {
  return {
    name,
    title: name,
    description: '',
    loaded,
    enabled: true,
    state: loaded ? 'running' : 'stopped',
    outcome: 'none',
    drift: !loaded,
  };
}

/** One app on its own https server; the control records its calls and closes the server when WEBServer goes. */
async function serve(): Promise<{
  calls: string[];
  closed: Promise<void>;
  request: (path: string, opts?: WebRequestOptions) => Promise<WebResponse>;
  stop: () => Promise<void>;
}> {
  const loaded = snapshotOf('[/settings/WEB/server]\npassword = pw\n');
  const calls: string[] = [];
  let server: Server | undefined;
  let markClosed: () => void = () => undefined;
  const closed = new Promise<void>((r) => (markClosed = r));
  const stopSelf = async (): Promise<void> => {
    const srv = server as Server;
    const done = new Promise<void>((r) => srv.close(() => r()));
    setTimeout(() => srv.closeAllConnections(), 50).unref();
    await done;
    markClosed();
  };
  const act =
    (verb: string) =>
    async (name: string): Promise<ModuleStatus> => {
      calls.push(`${verb} ${name}`);
      if (name === 'WEBServer' && (verb === 'unload' || verb === 'disable')) await stopSelf();
      return status(name, verb === 'load' || verb === 'enable');
    };
  const reconciler: ReconcilerStatus = {
    file: '/tmp/m.ini',
    fileHash: 'f',
    appliedHash: 'a',
    lastReload: null,
    lastResult: 'none',
    problems: [],
    warnings: [],
    reloads: { ok: 1, invalid: 0, partial: 0 },
    modules: [],
    drift: [],
  };
  const known = ['WEBServer', 'CheckHelpers'];
  const control: AgentControl = {
    settings: () => loaded,
    modules: () => known.map((n) => status(n, true)),
    module: (n) =>
      known.find((k) => k.toLowerCase() === n.toLowerCase())
        ? status(known.find((k) => k.toLowerCase() === n.toLowerCase()) as string, true)
        : undefined,
    load: act('load'),
    unload: act('unload'),
    enable: act('enable'),
    disable: act('disable'),
    status: () => reconciler,
    pullSettings: () => Promise.reject(new Error('no source')),
    reload: async () => reconciler,
    editSettings: async () => {
      throw new Error('not in this test');
    },
    logs: () => [],
    logStatus: () => ({ errors: 0, lastError: '' }),
    clearLogs: () => 0,
    info: () => ({ name: 'agent', version: '1', started: 'now', pid: 1, settings: '/tmp/m.ini' }),
  };
  const core = createCore({ settings: () => loaded });
  const view = moduleView(MODULE_SECTIONS.WEBServer, loaded);
  const web = buildApp({ core, control, getSnapshot: () => view });
  const certs = await pems;
  server = createServer({ cert: certs.cert, key: certs.private }, web.handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    calls,
    closed,
    request: (path, opts = {}) =>
      webRequest(`${base}${path}`, { user: 'root', password: 'pw', timeoutMs: 5000, ...opts }),
    stop: async () => {
      if (!server.listening) return;
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

function snapshotOf(text: string) {
  const loaded = loadSettingsText(text, '/tmp/m.ini');
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  return loaded.snapshot;
}

const json = { 'content-type': 'application/json' };
const CASES: [string, string, WebRequestOptions, string][] = [
  [
    'PUT /api/v1/modules loaded=false',
    '/api/v1/modules',
    { method: 'PUT', headers: json, body: '{"name":"WEBServer","loaded":false}' },
    'unload WEBServer',
  ],
  [
    'PUT /api/v1/modules/webserver loaded=false',
    '/api/v1/modules/webserver',
    { method: 'PUT', headers: json, body: '{"loaded":false}' },
    'unload WEBServer',
  ],
  ['GET .../commands/unload', '/api/v1/modules/WEBServer/commands/unload', {}, 'unload WEBServer'],
  ['GET .../commands/disable', '/api/v1/modules/WEBServer/commands/disable', {}, 'disable WEBServer'],
];

void describe('stopping WEBServer through its own API', () => {
  for (const [title, path, opts, call] of CASES) {
    void it(`${title}: answers 202, then stops the web server`, async () => {
      const app = await serve();
      try {
        const r = await app.request(path, opts);
        assert.equal(r.status, 202, r.body);
        const body = r.json<{ result: number; message: string; module: { name: string } }>();
        assert.equal(body.result, 0);
        assert.equal(body.message, 'WEBServer is stopping; this connection closes');
        assert.equal(body.module.name, 'WEBServer');
        assert.equal(r.headers.connection, 'close');
        await Promise.race([
          app.closed,
          new Promise((_, reject) => setTimeout(() => reject(new Error('the server was not stopped')), 5000).unref()),
        ]);
        assert.deepEqual(app.calls, [call]);
      } finally {
        await app.stop();
      }
    });
  }

  void it('other modules are answered after the call, as before', async () => {
    const app = await serve();
    try {
      const r = await app.request('/api/v1/modules/CheckHelpers/commands/unload');
      assert.equal(r.status, 200, r.body);
      assert.equal(r.json<{ message: string }>().message, 'Success unload CheckHelpers');
      const put = await app.request('/api/v1/modules', {
        method: 'PUT',
        headers: json,
        body: '{"name":"CheckHelpers","loaded":false}',
      });
      assert.equal(put.status, 200, put.body);
      assert.equal(put.json<{ loaded: boolean }>().loaded, false);
      assert.deepEqual(app.calls, ['unload CheckHelpers', 'unload CheckHelpers']);
    } finally {
      await app.stop();
    }
  });
});
