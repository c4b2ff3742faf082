/**
 * A settings change the web server cannot take (its new port is busy) must
 * not be reported as applied: the reload is partial, WEBServer's outcome is
 * failed with the reason, the old listener keeps serving, and the change
 * lands by itself (backoff retry) once the port is free.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { startAgent, replaceFile, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { basic, webRequest } from '../helpers/web-client.js';

let agent: AgentProcess;
let oldPort: number;
let busyPort: number;
let blocker: Server;
const auth = basic('root', 'kept-secret');
const made = new Teardown();
after(() => made.close());
/** Resolves when the server is closed, also when it was closed already (the test frees the port itself). */
const closeServer = (server: Server): Promise<void> => new Promise<void>((res) => server.close(() => res()));

const ini = (port: number): string => `[/modules]
WEBServer = enabled
CheckHelpers = enabled

[/settings/default]
password = kept-secret

[/settings/WEB/server]
port = ${port}s
bind to = 127.0.0.1
`;

before(async () => {
  // Both ports picked by the system: the agent's (port 0s, read from its log) and the blocker's.
  blocker = made.add(createServer(), closeServer);
  busyPort = await new Promise<number>((res) =>
    blocker.listen(0, '127.0.0.1', () => res((blocker.address() as { port: number }).port)),
  );
  agent = made.add(await startAgent({ ini: ini(0) }), (a) => a.stop());
  oldPort = await webPort(agent);
});

void test('a busy new port: partial reload, outcome failed, old listener serves; freed port: applied', async () => {
  const m = agent.mark();
  replaceFile(agent.settingsFile, ini(busyPort));
  await agent.waitForLog(/cannot move the web server to https:\/\/127\.0\.0\.1:\d+/, 10_000, m);
  const status = await webRequest(`https://127.0.0.1:${oldPort}/api/v1/settings/status`, {
    headers: { authorization: auth },
  });
  assert.equal(status.status, 200);
  const body = JSON.parse(status.body) as {
    lastResult: string;
    modules: { name: string; outcome: string; loaded: boolean; error?: string }[];
  };
  assert.equal(body.lastResult, 'partial');
  const web = body.modules.find((x) => x.name === 'WEBServer');
  assert.equal(web?.loaded, true);
  assert.equal(web.outcome, 'failed');
  assert.match(web.error ?? '', /still running on the previous settings/);
  assert.match(
    readFileSync(agent.settingsFile, 'utf8'),
    new RegExp(`port = ${busyPort}s`),
    'the file keeps the wanted port',
  );
  // Free the port: the backoff retry moves the listener.
  const m2 = agent.mark();
  await closeServer(blocker);
  await agent.waitForLog(new RegExp(`web server listening on https://127\\.0\\.0\\.1:${busyPort}`), 15_000, m2);
  const moved = await webRequest(`https://127.0.0.1:${busyPort}/api/v1/settings/status`, {
    headers: { authorization: auth },
  });
  assert.equal(moved.status, 200);
  const after2 = JSON.parse(moved.body) as { modules: { name: string; outcome: string }[] };
  assert.equal(after2.modules.find((x) => x.name === 'WEBServer')?.outcome, 'applied');
  blocker = made.add(createServer(), closeServer);
  await new Promise<void>((res) => blocker.listen(0, '127.0.0.1', () => res()));
});
