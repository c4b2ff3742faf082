/**
 * Black box (issue 37, item 3 and 8): guessing the documented shared
 * `[/settings/default] password` over check_nt, which had no failed-login
 * limit (3,626 guesses a second), and then signing in to the web as root
 * with it. The agent runs as a process with WEBServer and NSClientServer;
 * one limit counts the failures of an address on both: 10 failures on one
 * of them block the address on the other, guesses after that are answered
 * without checking (the right password is refused too), and a burst of
 * wrong passwords leaves one log line per kind and address, not one per
 * guess.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { listenerPort, type AgentProcess } from '../helpers/agent-process.js';
import { startWebAgent } from '../helpers/nscp-clients.js';
import { rawRequest } from '../helpers/check-nt.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest } from '../helpers/web-client.js';

const SHARED = 'shared-pw-42';
const MAX = 10;
const BAD = 'ERROR: Bad request.';

void describe('one failed-login limit for check_nt and the web (agent process)', () => {
  let agent: AgentProcess;
  let base: string;
  let ca: string;
  let nt: number;
  const made = new Teardown();

  before(async () => {
    ({ agent, base, ca } = made.add(
      await startWebAgent({
        ini: `[/modules]
WEBServer = enabled
NSClientServer = enabled
CheckSystem = enabled

[/settings/default]
password = ${SHARED}
allowed hosts = 127.0.0.0/8

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
auth rate limit max failures = ${MAX}
auth rate limit block seconds = 600

[/settings/NSClient/server]
port = 0
bind to = 127.0.0.1
`,
      }),
      (w) => w.agent.stop(),
    ));
    nt = await listenerPort(agent, 'NSClientServer');
  });
  after(() => made.close());

  const ntAs = (from: string, password: string): Promise<string> =>
    rawRequest(nt, `${password}&1`, { from, ms: 20_000 });
  const webAs = (from: string, password: string): Promise<number> =>
    webRequest(`${base}/api/v1/info`, { ca, localAddress: from, user: 'root', password }).then((r) => r.status);

  /** The agent's count of check_nt requests refused for `reason`. */
  async function ntRefusals(reason: string): Promise<number> {
    const res = await webRequest(`${base}/api/v1/metrics`, { ca, user: 'root', password: SHARED });
    assert.equal(res.status, 200);
    const m = new RegExp(`agent_refused_total\\{channel="nsclient",reason="${reason}"\\} (\\d+)`).exec(res.body);
    return m ? Number(m[1]) : 0;
  }

  void it('the right password answers before any guess (the setup works)', async () => {
    assert.match(await ntAs('127.0.0.1', SHARED), /^agent /);
    assert.equal(await webAs('127.0.0.1', SHARED), 200);
  });

  void it('50 wrong check_nt passwords: 10 checked, then check_nt and the web refuse the right one', async () => {
    const from = '127.0.0.7';
    const checkedBefore = await ntRefusals('password');
    const mark = agent.mark();
    for (let i = 0; i < 50; i++) assert.equal(await ntAs(from, `guess-${i}`), BAD);
    const checked = (await ntRefusals('password')) - checkedBefore;
    assert.equal(checked, MAX, `${checked} check_nt guesses were checked; the limit is ${MAX}`);
    assert.equal(await ntAs(from, SHARED), BAD, 'check_nt refuses the right password once blocked');
    assert.equal(await webAs(from, SHARED), 403, 'the web refuses the password found on check_nt');
    assert.match(await ntAs('127.0.0.8', SHARED), /^agent /, 'another address is not blocked');
    const lines = agent.logs().slice(mark);
    assert.match(lines, /127\.0\.0\.7 is refused for 600 s after 10 failed authentications/);
    const perGuess = lines.split('\n').filter((l) => l.includes('127.0.0.7') && l.includes('wrong password'));
    assert.ok(perGuess.length <= 1, `${perGuess.length} lines for the wrong passwords of one address:\n${lines}`);
  });

  void it('10 wrong web passwords block check_nt for that address', async () => {
    const from = '127.0.0.9';
    for (let i = 0; i < MAX; i++) assert.equal(await webAs(from, `web-guess-${i}`), 403);
    assert.equal(await ntAs(from, SHARED), BAD, 'check_nt refuses the right password');
    assert.equal(await webAs(from, SHARED), 403);
  });
});
