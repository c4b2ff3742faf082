/**
 * The app built by buildApp, served by a real https server on port 0 with a
 * core from createCore and a small in-test AgentControl. Covers what the
 * black-box tests cannot reach: the route table (nothing without a
 * privilege), a defect becoming a bare 500 with the stack in the log, a
 * streamed body cut at the limit, static files, and the query-string
 * argument rules.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { createCore } from '../../../src/core/core-impl.js';
import type { AgentControl, ReconcilerStatus } from '../../../src/core/control.js';
import { sink } from '../../../src/log.js';
import { loadSettingsText } from '../../../src/settings/model/load.js';
import { moduleView } from '../../../src/settings/model/module-view.js';
import { MODULE_SECTIONS } from '../../../src/settings/model/module-table.js';
import type { Snapshot } from '../../../src/settings/model/snapshot.js';
import { isGuarded } from '../../../src/web/requirement.js';
import { buildApp, type WebApp } from '../../../src/web/app.js';
import { queryArguments } from '../../../src/web/routes/queries.js';
import { safePath } from '../../../src/web/static.js';
import { webRequest, type WebRequestOptions } from '../../helpers/web-client.js';

const INI = `[/settings/WEB/server]
password = pw
max body size = 1024
`;

function snapshotOf(text: string): Snapshot {
  const loaded = loadSettingsText(text, '/tmp/app-test.ini');
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  return loaded.snapshot;
}

/** A control whose info() throws a plain Error when asked to, to stand for a defect. */
function testControl(state: { broken: boolean }, snapshot: Snapshot): AgentControl {
  const status: ReconcilerStatus = {
    file: '/tmp/app-test.ini',
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
  const refuse = async (): Promise<never> => {
    throw new Error('not in this test');
  };
  return {
    settings: () => snapshot,
    modules: () => [],
    module: () => undefined,
    load: refuse,
    unload: refuse,
    enable: refuse,
    disable: refuse,
    status: () => status,
    pullSettings: () => Promise.reject(new Error('no source')),
    reload: async () => status,
    editSettings: refuse,
    logs: () => [],
    logStatus: () => ({ errors: 0, lastError: '' }),
    clearLogs: () => 0,
    info: () => {
      if (state.broken) throw new TypeError('secret internal detail');
      return { name: 'agent', version: '1', started: 'now', pid: 1, settings: '/tmp/app-test.ini' };
    },
  };
}

void describe('buildApp over HTTPS', () => {
  const state = { broken: false };
  let web: WebApp;
  let server: Server;
  let base: string;
  let uiDir: string;
  const root = (path: string, opts: WebRequestOptions = {}) =>
    webRequest(`${base}${path}`, { user: 'root', password: 'pw', ...opts });

  before(async () => {
    uiDir = mkdtempSync(join(tmpdir(), 'web-ui-'));
    writeFileSync(join(uiDir, 'index.html'), '<!doctype html><title>ui</title>');
    mkdirSync(join(uiDir, 'views'));
    writeFileSync(join(uiDir, 'views', 'a.js'), 'export const a = 1;\n');
    writeFileSync(join(uiDir, '..', `${uiDir.split('/').pop()}-secret.txt`), 'outside');
    const snapshot = snapshotOf(INI);
    const core = createCore({ settings: () => snapshot });
    const view = moduleView(MODULE_SECTIONS.WEBServer, snapshot);
    web = buildApp({ core, control: testControl(state, snapshot), getSnapshot: () => view, uiDir });
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', algorithm: 'sha256' });
    server = createServer({ cert: pems.cert, key: pems.private }, web.handler);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(uiDir, { recursive: true, force: true });
    rmSync(`${uiDir}-secret.txt`, { force: true });
  });

  void it('registers every API route through the guarded table, each with a privilege', async () => {
    const polkaRoutes = (web.app as unknown as { routes: { method: string; handlers: unknown[] }[] }).routes.filter(
      (r) => r.method !== '',
    );
    assert.equal(polkaRoutes.length, web.routes.length, 'no route bypasses the table');
    const open = new Set(web.routes.filter((r) => r.privilege === 'none').map((r) => `${r.method} ${r.path}`));
    assert.deepEqual([...open], ['GET /core/isalive'], 'the only route without authentication');
    for (const r of polkaRoutes)
      assert.equal(r.handlers.length, 1, "one handler per route (the guard runs the route's own)");
    assert.equal(
      polkaRoutes.filter((r) => !isGuarded(r.handlers[0])).length,
      open.size,
      'only open routes lack a guard',
    );
    const one = '(public|legacy|[a-z]+(\\.([a-z]+|<[A-Z]>))+)';
    for (const r of web.routes)
      if (r.privilege !== 'none')
        assert.match(r.privilege, new RegExp(`^${one}(\\|${one})*$`), `${r.method} ${r.path}`);
    const table = new Set(web.routes.map((r) => `${r.method} ${r.path} ${r.privilege}`));
    for (const expected of [
      'GET /api public',
      'GET /api/v1 public',
      'GET /api/v1/info info.get',
      'GET /api/v1/info/version info.get|info.get.version',
      'GET /api/v1/modules modules.list',
      'GET /api/v1/modules/:module modules.get',
      'PUT /api/v1/modules modules.load|modules.unload',
      'PUT /api/v1/modules/:module modules.load|modules.unload',
      'GET /api/v1/modules/:module/commands/load modules.load',
      'GET /api/v1/modules/:module/commands/unload modules.unload',
      'GET /api/v1/modules/:module/commands/enable modules.enable',
      'GET /api/v1/modules/:module/commands/disable modules.disable',
      'GET /api/v1/queries queries.list',
      'GET /api/v1/queries/:query queries.get',
      'GET /api/v1/queries/:query/commands/execute queries.execute',
      'GET /api/v1/schedules schedules.list',
      'GET /api/v1/scripts scripts.list|scripts.list.runtimes',
      'GET /api/v1/scripts/:runtime scripts.list|scripts.lists.<R>',
      'GET /api/v1/scripts/:runtime/* scripts.get|scripts.get.<R>',
      'PUT /api/v1/scripts/:runtime/* scripts.add|scripts.add.<R>',
      'DELETE /api/v1/scripts/:runtime/* scripts.delete|scripts.delete.<R>',
      'GET /api/v1/logs logs.list',
      'GET /api/v1/settings/status settings.get',
      'GET /api/v1/metrics metrics.list',
      'GET /api/v1/metrics/checks queries.execute',
      'GET /api/v1/queries/:query/commands/execute_nagios queries.execute',
      'GET /query/:command legacy',
      'POST /query.pb legacy',
      'POST /core/reload legacy',
      'GET /log/status legacy',
      'GET /log/messages legacy',
      'POST /log/reset legacy',
      'GET /api/v1/login login.get',
      'DELETE /api/v1/login login.get',
      'GET /api/v1/logs/since logs.list',
      'GET /api/v1/logs/status logs.list',
      'POST /api/v1/logs logs.put',
      'DELETE /api/v1/logs logs.delete',
      'GET /api/v1/settings settings.get',
      'GET /api/v1/settings/* settings.get',
      'PUT /api/v1/settings/* settings.put',
      'DELETE /api/v1/settings/* settings.delete',
      'POST /api/v1/settings/command settings.put',
    ]) {
      assert.ok(table.has(expected), `missing ${expected}`);
    }
    // And every registered route refuses a request without credentials.
    for (const r of web.routes) {
      const path = r.path
        .replace(':module', 'CheckHelpers')
        .replace(':query', 'check_ok')
        .replace(':runtime', 'ext')
        .replace(':command', 'check_ok')
        .replace('/api/v1/settings/*', '/api/v1/settings/modules')
        .replace('*', 'a.sh');
      const res = await webRequest(`${base}${path}`, { method: r.method });
      assert.equal(res.status, r.privilege === 'none' ? 200 : 403, `${r.method} ${path}`);
    }
  });

  void it('counts each finished answer once, on its own response class and on a plain one', async () => {
    // The app's class counts as the answer emits `finish`; this suite's plain server gets a listener per request.
    const own = createServer(
      {
        ...(await generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', algorithm: 'sha256' }).then(
          (p) => ({ cert: p.cert, key: p.private }),
        )),
        ServerResponse: web.ServerResponse,
      },
      web.handler,
    );
    await new Promise<void>((r) => own.listen(0, '127.0.0.1', r));
    try {
      const ownBase = `https://127.0.0.1:${(own.address() as AddressInfo).port}`;
      const count = async (): Promise<number> => {
        const res = await root('/api/v1/metrics');
        assert.equal(res.status, 200);
        const line = /^agent_web_requests_total\{method="GET",route="\/api\/v1\/info",status="403"\} (\d+)$/m.exec(
          res.body,
        );
        return Number(line?.[1] ?? 0);
      };
      const before = await count();
      for (let i = 0; i < 3; i++) assert.equal((await webRequest(`${base}/api/v1/info`)).status, 403);
      for (let i = 0; i < 2; i++) assert.equal((await webRequest(`${ownBase}/api/v1/info`)).status, 403);
      const res = await webRequest(`${ownBase}/api/v1/info`);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', 'the security headers on the app class too');
      assert.equal(await count(), before + 6);
    } finally {
      own.closeAllConnections();
      await new Promise<void>((r) => own.close(() => r()));
    }
  });

  void it('answers a defect with a bare 500 and logs the stack', async () => {
    state.broken = true;
    try {
      const before = sink.entries().length;
      const res = await root('/api/v1/info');
      assert.equal(res.status, 500);
      assert.deepEqual(res.json(), {
        status: 'error',
        code: 'AGENT_ERR_HTTP_INTERNAL',
        error: 'internal error; see the agent log',
      });
      assert.doesNotMatch(res.body, /secret internal detail/);
      const logged = sink
        .entries()
        .slice(before)
        .find((e) => e.level === 'error' && e.message.includes('secret internal detail'));
      assert.ok(logged, 'the defect is logged');
      assert.match(logged.message, /at .*\(.*\.js:\d+:\d+\)/, 'with its stack');
    } finally {
      state.broken = false;
    }
  });

  void it('cuts a chunked body at max body size with 413', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${base}/api/v1/modules`,
        {
          method: 'PUT',
          rejectUnauthorized: false,
          headers: {
            authorization: `Basic ${Buffer.from('root:pw').toString('base64')}`,
            'transfer-encoding': 'chunked',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      for (let i = 0; i < 4; i++) req.write('x'.repeat(512));
      req.end();
    });
    assert.equal(status, 413);
  });

  void it('serves static files with content types, ETag revalidation and no traversal', async () => {
    const index = await webRequest(`${base}/`);
    assert.equal(index.status, 200);
    assert.match(String(index.headers['content-type']), /^text\/html/);
    const js = await webRequest(`${base}/views/a.js`);
    assert.equal(js.status, 200);
    assert.match(String(js.headers['content-type']), /^text\/javascript/);
    const etag = String(js.headers.etag);
    const again = await webRequest(`${base}/views/a.js`, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    for (const bad of [
      `/../${uiDir.split('/').pop()}-secret.txt`,
      '/%2e%2e/etc/passwd',
      '/views/..%2f..%2fetc%2fpasswd',
      '/views',
      '/%00',
    ]) {
      const res = await webRequest(`${base}${bad}`);
      assert.equal(res.status, 404, bad);
    }
    assert.equal(safePath('/srv/ui', '/a/../../b'), undefined);
    assert.equal(safePath('/srv/ui', '/%E0%A4%A'), undefined);
    assert.equal(safePath('/srv/ui', '/x/y.js'), '/srv/ui/x/y.js');
  });

  void it('turns the query string into check arguments in order', () => {
    assert.deepEqual(queryArguments('?warn=load%3E80&crit=load>90&show-all&time=5m&time=1m&msg=a+b%20c'), [
      'warn=load>80',
      'crit=load>90',
      'show-all',
      'time=5m',
      'time=1m',
      'msg=a b c',
    ]);
    assert.deepEqual(queryArguments(''), []);
    assert.throws(() => queryArguments('?x=%E0%A4%A'), { code: 'AGENT_ERR_HTTP_BAD_REQUEST' });
  });
});
