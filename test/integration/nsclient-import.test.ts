/**
 * `config-agent settings import` of an nsclient.ini that serves check_nt
 * (test/fixtures/nsclient/check-nt-server.ini): [/settings/NSClient/server]
 * carried over with NSClient++'s keys (the timeout of [/settings/default]
 * written into it, the keys without meaning here reported), the result
 * valid, and the agent running it answering Debian's check_nt with the
 * imported password and allow list.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { REPO, listenerPort, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { runAgentCli } from '../helpers/run-cli.js';
import { checkNt } from '../helpers/check-nt.js';

const SOURCE = join(REPO, 'test/fixtures/nsclient/check-nt-server.ini');
let imported: { code: number; stdout: string; stderr: string };
let agent: AgentProcess | undefined;

before(async () => {
  imported = await runAgentCli(['settings', 'import', SOURCE]);
});

after(async () => {
  await agent?.stop();
});

void test('the check_nt server section is carried over with NSClient++ keys; what has no meaning here is reported', () => {
  assert.equal(imported.code, 0, imported.stderr);
  const text = imported.stdout;
  assert.match(text, /\nNSClientServer = enabled\n/);
  assert.match(
    text,
    /\[\/settings\/NSClient\/server\]\n; PORT NUMBER - Port to use for check_nt\.\nport = 12489\nperformance data = true\nuse ssl = false\nbind to = 127\.0\.0\.1\nallow = metrics, info, process\ntimeout = 45\n/,
  );
  assert.match(
    text,
    /\[\/settings\/default\]\n; the Nagios server\nallowed hosts = 127\.0\.0\.1\npassword = checknt-secret\ntimeout = 45\n/,
  );
  const at = (line: number, rest: string): void =>
    assert.ok(
      imported.stderr.includes(`${SOURCE}:${line}: ${rest}`),
      `report has ${SOURCE}:${line}: ${rest}\n${imported.stderr}`,
    );
  at(
    12,
    "[/settings/default] timeout: note: also written as [/settings/NSClient/server] timeout: NSClient++'s check_nt server takes it from [/settings/default]",
  );
  at(21, '[/settings/NSClient/server] socket queue size: dropped: no meaning here');
  at(22, '[/settings/NSClient/server] thread pool: dropped: no meaning here');
  assert.doesNotMatch(imported.stderr, /not carried over/);
});

void test('the agent runs the imported file: check_nt with its password and allow list', async () => {
  agent = await startAgent({ ini: imported.stdout.replace('port = 12489', 'port = 0') });
  const port = await listenerPort(agent, 'NSClientServer');
  const nt = (...args: string[]) => checkNt(port, ['-s', 'checknt-secret', ...args]);
  assert.match((await nt('-v', 'CLIENTVERSION')).out, /^agent \d/);
  assert.equal((await nt('-v', 'MEMUSE')).code, 0);
  assert.equal((await nt('-v', 'PROCSTATE', '-l', 'node')).code, 0);
  assert.deepEqual(await nt('-v', 'FILEAGE', '-l', '/tmp/x'), {
    code: 3,
    out: 'NSClient - ERROR: Command not allowed.',
  });
  assert.deepEqual(await checkNt(port, ['-s', 'wrong', '-v', 'UPTIME']), {
    code: 3,
    out: 'NSClient - ERROR: Bad request.',
  });
});
