/**
 * The keep-alive shortcut of the access layer: on one connection, a request
 * repeating the Authorization header that passed skips the credential
 * check, but only under the same settings version. A password change in the
 * settings makes the very next request on the same connection 403, another
 * header on that connection is checked in full, and the route's privilege
 * is still checked on every request.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { generate } from 'selfsigned';
import { createCore } from '../../../src/core/core-impl.js';
import type { AgentControl } from '../../../src/core/control.js';
import { sink } from '../../../src/log.js';
import { loadSettingsText } from '../../../src/settings/model/load.js';
import { moduleView } from '../../../src/settings/model/module-view.js';
import { MODULE_SECTIONS } from '../../../src/settings/model/module-table.js';
import type { Snapshot } from '../../../src/settings/model/snapshot.js';
import { buildApp } from '../../../src/web/app.js';
import { webRequest } from '../../helpers/web-client.js';

sink.consoleLevel = 'silent';

const settings = (password: string): Snapshot => {
  const loaded = loadSettingsText(
    `[/settings/WEB/server]\npassword = ${password}\n\n[/settings/web/roles]\nreader = info.get\n\n[/settings/web/users/ann]\npassword = ann-pw\nrole = reader\n`,
    '/tmp/auth-keepalive.ini',
  );
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  return loaded.snapshot;
};

let snapshot = settings('first-pw');
let server: Server;
let base: string;
const sockets = new Set<Socket>();
const agent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });

before(async () => {
  const control = {
    info: () => ({ name: 'agent', version: '1', started: 'now', pid: 1, settings: '/tmp/auth-keepalive.ini' }),
  } as unknown as AgentControl;
  const core = createCore({ settings: () => snapshot });
  // WEBServer's view of the current snapshot, rebuilt when the test replaces it (as the reconciler's apply does).
  let view = moduleView(MODULE_SECTIONS.WEBServer, snapshot);
  const web = buildApp({
    core,
    control,
    getSnapshot: () => {
      if (view.hash !== snapshot.hash) view = moduleView(MODULE_SECTIONS.WEBServer, snapshot);
      return view;
    },
  });
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', algorithm: 'sha256' });
  server = createServer({ cert: pems.cert, key: pems.private }, web.handler);
  server.on('secureConnection', (s: Socket) => sockets.add(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  agent.destroy();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

void test('one connection: the same header passes again, a changed password refuses it at once', async () => {
  const get = (path: string, user: string, password: string) => webRequest(`${base}${path}`, { user, password, agent });
  assert.equal((await get('/api/v1/info', 'root', 'first-pw')).status, 200);
  assert.equal((await get('/api/v1/info', 'root', 'first-pw')).status, 200);
  assert.equal((await get('/api/v1/info', 'root', 'wrong')).status, 403, 'another header is checked in full');
  assert.equal((await get('/api/v1/info', 'root', 'first-pw')).status, 200);
  snapshot = settings('second-pw');
  assert.equal(
    (await get('/api/v1/info', 'root', 'first-pw')).status,
    403,
    'the old password no longer passes on the same connection',
  );
  assert.equal((await get('/api/v1/info', 'root', 'second-pw')).status, 200);
  assert.equal(sockets.size, 1, 'every request went over one connection');
});

void test('the privilege is checked on every request of a remembered principal', async () => {
  const ann = (path: string) => webRequest(`${base}${path}`, { user: 'ann', password: 'ann-pw', agent });
  assert.equal((await ann('/api/v1/info')).status, 200);
  assert.equal((await ann('/api/v1/modules')).status, 403, 'ann lacks modules.list');
  assert.equal((await ann('/api/v1/info')).status, 200);
});
