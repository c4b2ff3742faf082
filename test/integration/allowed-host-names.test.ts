/**
 * RemoteServer with a host name in allowed hosts, in a real agent process:
 * the name is resolved at start (check_nrpe from its address answers),
 * and again on reload: a name that no longer resolves is logged as a
 * warning naming it, and its peers are refused.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { listenerPort, replaceFile, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { checkNrpe } from '../helpers/nrpe-daemon.js';

let agent: AgentProcess;
let port: number;
const made = new Teardown();
const ini = (hosts: string): string =>
  `[/modules]\nCheckHelpers = enabled\nRemoteServer = enabled\n\n[/settings/remote/server]\nport = 0\nbind to = 127.0.0.1\nallowed hosts = ${hosts}\n`;

before(async () => {
  const loopback = (await lookup(hostname(), { all: true })).some((a) => a.address === '127.0.0.1');
  assert.ok(loopback, `this test needs ${hostname()} to resolve to 127.0.0.1 (/etc/hosts)`);
  agent = made.add(await startAgent({ ini: ini(hostname()) }), (a) => a.stop());
  port = await listenerPort(agent, 'RemoteServer');
});

after(() => made.close());

void test('a host name in allowed hosts admits the address it resolves to', async () => {
  assert.deepEqual(await checkNrpe(port, ['-c', 'check_ok']), { code: 0, out: 'OK: check_ok' });
});

void test('on reload a name that does not resolve is reported and allows nobody', async () => {
  const mark = agent.mark();
  replaceFile(agent.settingsFile, ini('no-such-host.invalid'));
  await agent.waitForLog(
    /allowed hosts entry "no-such-host\.invalid" does not resolve \(\w+\): it allows nobody until a reload resolves it/,
    10_000,
    mark,
  );
  let r = await checkNrpe(port, ['-c', 'check_ok']);
  for (let i = 0; i < 50 && r.code === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    r = await checkNrpe(port, ['-c', 'check_ok']);
  }
  assert.notEqual(r.code, 0, r.out);
});
