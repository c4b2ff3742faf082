/**
 * Black box, as an attacker would try it (issue 11, item 2): bursts of
 * parallel password guesses from one address, the right password hidden at
 * guess 45 (in the second wave: see burst()). The agent runs as a process; the failed-login limit must hold
 * whatever the concurrency: at most `auth rate limit max failures` guesses
 * per address are checked (counted by the agent's own metrics), and the
 * right password arriving after them is refused.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'node:https';
import { startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest } from '../helpers/web-client.js';
import { inRange } from '../../src/in-range.js';

const MAX = 10;
const INI = `[/modules]
WEBServer = enabled

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = the-right-one
allowed hosts = 127.0.0.0/8
auth rate limit max failures = ${MAX}
auth rate limit block seconds = 600

[/settings/web/users/alice]
password = alice-pw
role = legacy
`;

void describe('failed-login limit under parallel guesses (agent process)', () => {
  let agent: AgentProcess;
  let base: string;
  let ca: string;
  const made = new Teardown();

  before(async () => {
    agent = made.add(await startAgent({ ini: INI }), (a) => a.stop());
    base = inRange(await agent.waitForLog(/web server listening on (https:\/\/127\.0\.0\.1:\d+)/), 1);
    ca = readFileSync(join(agent.dir, 'security', 'certificate.pem'), 'utf8');
  });
  after(() => made.close());

  /** Failed credential checks so far, from the agent's metrics (asked from 127.0.0.1, never blocked here). */
  async function checkedFailures(): Promise<number> {
    const res = await webRequest(`${base}/api/v1/metrics`, { ca, user: 'root', password: 'the-right-one' });
    assert.equal(res.status, 200);
    const m = /agent_web_auth_failures_total\{reason="credentials"\} (\d+)/.exec(res.body);
    return m ? Number(m[1]) : 0;
  }

  /**
   * `count` guesses from `from`, the right password at position `rightAt` (1-based); statuses in order. The
   * guesses before it go at once, then the rest at once: parallel connections reach the password check in
   * no fixed order, so a right password sent in the same wave as the first wrong ones could be among the
   * checks the limit allows, and be let in rightly. After a wave of more than the limit, it never is.
   */
  async function burst(from: string, count: number, rightAt: number): Promise<number[]> {
    const pool = new Agent({ keepAlive: false, maxSockets: count });
    const guess = (i: number): Promise<number> =>
      webRequest(`${base}/api/v1/info`, {
        ca,
        agent: pool,
        localAddress: from,
        user: 'root',
        password: i + 1 === rightAt ? 'the-right-one' : `guess-${i}`,
        timeoutMs: 60_000,
      }).then(
        (r) => r.status,
        () => 0, // refused at the connection (the per-address connection cap): no guess checked
      );
    try {
      const first = await Promise.all(Array.from({ length: rightAt - 1 }, (_, i) => guess(i)));
      const rest = await Promise.all(Array.from({ length: count - rightAt + 1 }, (_, i) => guess(rightAt - 1 + i)));
      return [...first, ...rest];
    } finally {
      pool.destroy();
    }
  }

  for (const [from, count] of [
    ['127.0.0.2', 60],
    ['127.0.0.3', 300],
  ] as const) {
    void it(`checks at most ${MAX} of ${count} parallel guesses and refuses the right password at guess 45`, async () => {
      const before = await checkedFailures();
      const statuses = await burst(from, count, 45);
      const checked = (await checkedFailures()) - before;
      assert.ok(checked <= MAX, `${checked} guesses were checked; the limit is ${MAX}`);
      assert.ok(checked >= 1, 'the burst reached the password check');
      assert.ok(
        statuses.every((st) => st === 403 || st === 0),
        'every guess refused, the right one included',
      );
      assert.ok(statuses.includes(403));
      assert.match(
        agent.logs(),
        new RegExp(`${from.replace(/\./g, '\\.')} is refused for 600 s after ${MAX} failed authentications`),
      );
      const later = await webRequest(`${base}/api/v1/info`, {
        ca,
        localAddress: from,
        user: 'root',
        password: 'the-right-one',
      });
      assert.equal(later.status, 403, 'the address stays blocked for the right password too');
    });
  }

  void it('lets identical parallel requests with good credentials through (one check, shared)', async () => {
    const pool = new Agent({ keepAlive: false, maxSockets: 40 });
    try {
      const statuses = await Promise.all(
        Array.from({ length: 40 }, () =>
          webRequest(`${base}/api/v1/info`, {
            ca,
            agent: pool,
            localAddress: '127.0.0.4',
            user: 'alice',
            password: 'alice-pw',
          }).then((r) => r.status),
        ),
      );
      assert.deepEqual([...new Set(statuses)], [200]);
    } finally {
      pool.destroy();
    }
  });
});
