/**
 * Regular expressions from a request run in linear time (issue 25, item 1):
 * the backtracking bombs of the report, sent by check_nrpe to a real agent,
 * answer at once while other queries keep being answered, and the agent
 * still stops on SIGTERM.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgent, listenerPort, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { checkNrpe } from '../helpers/nrpe-daemon.js';

let agent: AgentProcess;
let port: number;
const made = new Teardown();

before(async () => {
  agent = made.add(
    await startAgent({
      ini: `[/modules]
CheckSystem = enabled
CheckHelpers = enabled
CheckDisk = enabled
RemoteServer = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/remote/server]
port = 0
bind to = 127.0.0.1
allow arguments = 1
allowed queries = check_*
allow nasty characters = true
`,
    }),
    async (a) => assert.equal(await a.stop(), 0, 'SIGTERM stops the agent'),
  );
  await agent.waitForLog(/listening on 127\.0\.0\.1:\d+ \(TLS\)/);
  port = await listenerPort(agent, 'RemoteServer');
});

after(() => made.close());

void test('filter regexp bombs on check_os_version and check_index answer, and check_ok is answered meanwhile', async () => {
  const bombs = [
    checkNrpe(port, ['-c', 'check_os_version', '-a', 'filter=pretty regexp "(.*)*Z"']),
    checkNrpe(port, ['-c', 'check_index', '-a', 'filter=description regexp "(.*)*Z"']),
    checkNrpe(port, ['-c', 'check_index', '-a', 'filter=description regexp "^(([a-z ,.()]+)+)+Z$"']),
  ];
  const probe = await checkNrpe(port, ['-c', 'check_ok', '-a', 'alive']);
  assert.deepEqual(probe, { code: 0, out: 'alive' });
  for (const r of await Promise.all(bombs)) {
    assert.doesNotMatch(r.out, /timeout|timed out/i, r.out);
    assert.ok([0, 3].includes(r.code), r.out);
  }
  // The same filters with a pattern that matches do match: the operator still works.
  const hit = await checkNrpe(port, [
    '-c',
    'check_index',
    '-a',
    'filter=name regexp "^check_o(k|s_version)$"',
    'show-all',
  ]);
  assert.match(hit.out, /check_ok/);
  assert.match(hit.out, /check_os_version/);
  assert.doesNotMatch(hit.out, /check_index/);
});

void test('patterns the linear engine cannot run, or too long ones, are refused with the reason', async () => {
  const back = await checkNrpe(port, ['-c', 'check_index', '-a', 'filter=name regexp "(check)\\1"']);
  assert.equal(back.code, 3);
  assert.match(back.out, /invalid regular expression: .*no backreferences or lookaround/);
  const long = await checkNrpe(port, ['-c', 'check_index', '-a', `filter=name regexp "${'a'.repeat(600)}"`]);
  assert.equal(long.code, 3);
  assert.match(long.out, /at most 512 are allowed/);
  const glob = await checkNrpe(port, ['-c', 'check_files', '-a', `path=${agent.dir}`, 'pattern={a,b']);
  assert.equal(glob.code, 3);
  assert.match(glob.out, /^pattern=\{a,b: unclosed \{/);
});
