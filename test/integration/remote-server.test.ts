/**
 * Debian's check_nrpe against our RemoteServer running in a real agent
 * process: TLS (default, -2, -3), arguments, refusals, hot-applied payload
 * length (-2 -P) and a switch to plain TCP (-n).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgent, listenerPort, replaceFile, type AgentProcess } from '../helpers/agent-process.js';
import { checkNrpe } from '../helpers/nrpe-daemon.js';
import { Teardown } from '../helpers/teardown.js';

let agent: AgentProcess;
let port: number;
const made = new Teardown();
after(() => made.close());

const ini = (extra = ''): string => `[/modules]
CheckHelpers = enabled
RemoteServer = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/remote/server]
port = 0
bind to = 127.0.0.1
allow arguments = 1
${extra}
`;

before(async () => {
  agent = made.add(await startAgent({ ini: ini() }), (a) => a.stop());
  port = await listenerPort(agent, 'RemoteServer');
});

void test('check_nrpe with default options (v4, TLS) gets _NRPE_CHECK', async () => {
  const r = await checkNrpe(port, []);
  assert.equal(r.code, 0);
  assert.match(r.out, /^I \(agent [\d.]+\) seem to be doing fine\.\.\.$/);
});

void test('check_nrpe -c runs an config-agent query with its status', async () => {
  assert.deepEqual(await checkNrpe(port, ['-c', 'check_ok']), { code: 0, out: 'OK: check_ok' });
  assert.deepEqual(await checkNrpe(port, ['-c', 'check_warning']), { code: 1, out: 'WARNING: check_warning' });
  assert.deepEqual(await checkNrpe(port, ['-c', 'check_critical']), { code: 2, out: 'CRITICAL: check_critical' });
});

void test('check_nrpe -2 and -3 work', async () => {
  assert.deepEqual(await checkNrpe(port, ['-2', '-c', 'check_ok']), { code: 0, out: 'OK: check_ok' });
  assert.deepEqual(await checkNrpe(port, ['-3', '-c', 'check_ok']), { code: 0, out: 'OK: check_ok' });
});

void test('check_nrpe -a passes arguments when allow arguments is set', async () => {
  assert.deepEqual(await checkNrpe(port, ['-c', 'check_ok', '-a', 'all', 'good']), { code: 0, out: 'all good' });
});

void test('an unknown query answers UNKNOWN naming it', async () => {
  const r = await checkNrpe(port, ['-c', 'no_such_query']);
  assert.equal(r.code, 3);
  assert.match(r.out, /no_such_query/);
});

void test('nasty characters are refused with an UNKNOWN that says why', async () => {
  const r = await checkNrpe(port, ['-c', 'check_ok', '-a', 'a;b']);
  assert.equal(r.code, 3);
  assert.equal(
    r.out,
    "Request contained illegal characters (one of `&><'\\[]{};, the vertical bar or a line break); allow nasty characters = false",
  );
});

void test('hot apply: arguments off, then payload length 2048 for -2 -P 2048, then plain TCP for -n', async () => {
  let mark = agent.mark();
  replaceFile(agent.settingsFile, ini().replace('allow arguments = 1', 'allow arguments = 0'));
  await agent.waitForLog(/RemoteServer/i, 10_000, mark);
  const refused = await waitUntil(
    async () => checkNrpe(port, ['-c', 'check_ok', '-a', 'x']),
    (r) => r.code === 3,
  );
  assert.match(refused.out, /arguments/);

  replaceFile(agent.settingsFile, ini('payload length = 2048'));
  const ok2048 = await waitUntil(
    async () => checkNrpe(port, ['-2', '-P', '2048', '-c', 'check_ok']),
    (r) => r.code === 0,
  );
  assert.equal(ok2048.out, 'OK: check_ok');

  mark = agent.mark();
  replaceFile(agent.settingsFile, ini('use ssl = 0'));
  await agent.waitForLog(/listening on 127\.0\.0\.1:\d+ \(plain\)/, 10_000, mark);
  port = await listenerPort(agent, 'RemoteServer', mark);
  assert.deepEqual(await checkNrpe(port, ['-n', '-c', 'check_ok']), { code: 0, out: 'OK: check_ok' });
  assert.deepEqual(await checkNrpe(port, ['-n', '-2', '-c', 'check_warning']), {
    code: 1,
    out: 'WARNING: check_warning',
  });
});

/** Repeats `run` until `done` holds (at most 40 times, 250 ms apart); returns the last outcome. */
async function waitUntil<T>(run: () => Promise<T>, done: (r: T) => boolean): Promise<T> {
  let last = await run();
  for (let i = 0; i < 40 && !done(last); i++) {
    await new Promise((r) => setTimeout(r, 250));
    last = await run();
  }
  return last;
}
