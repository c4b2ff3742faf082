/**
 * Black box (issue 37, item 8): the 403 of a route the user may not use
 * answered in 2–3 ms for a right password (its success was cached) against
 * 82–91 ms for a wrong one (a pbkdf2 run), which told a guesser the right
 * password of a low-privilege user without any 200. The agent runs as a
 * process; the medians of a bounded number of tries are compared with a
 * generous margin, never absolute times.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startWebAgent } from '../helpers/nscp-clients.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest } from '../helpers/web-client.js';
import { inRange } from '../../src/in-range.js';

const TRIES = 9;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return inRange(sorted, Math.floor(sorted.length / 2));
}

void describe('a right password without the privilege costs what a wrong one costs (agent process)', () => {
  let base: string;
  let ca: string;
  const made = new Teardown();

  before(async () => {
    ({ base, ca } = made.add(
      await startWebAgent({
        // The limit is raised: this test times guesses, it does not count them.
        ini: `[/modules]
WEBServer = enabled

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = root-pw
allowed hosts = 127.0.0.1
auth rate limit max failures = 1000

[/settings/web/roles]
monitoring = public, info.get, queries.list, queries.get, queries.execute

[/settings/web/users/mon]
password = mon-pw
role = monitoring
`,
      }),
      (w) => w.agent.stop(),
    ));
  });
  after(() => made.close());

  /** Milliseconds of one request for /api/v1/settings/status (mon lacks settings.get), with its status. */
  async function timed(password: string): Promise<{ ms: number; status: number }> {
    const start = performance.now();
    const res = await webRequest(`${base}/api/v1/settings/status`, { ca, user: 'mon', password });
    return { ms: performance.now() - start, status: res.status };
  }

  void it(`median of ${TRIES} right-but-forbidden tries ≥ half the median of ${TRIES} wrong ones`, async () => {
    assert.equal((await timed('mon-pw')).status, 403, 'the first right try (checked, then remembered)');
    const wrong: number[] = [];
    const right: number[] = [];
    for (let i = 0; i < TRIES; i++) {
      const w = await timed(`wrong-${i}`);
      const r = await timed('mon-pw');
      assert.equal(w.status, 403);
      assert.equal(r.status, 403);
      wrong.push(w.ms);
      right.push(r.ms);
    }
    const [mw, mr] = [median(wrong), median(right)];
    assert.ok(
      mr >= 0.5 * mw,
      `right but forbidden: median ${mr.toFixed(1)} ms; wrong: median ${mw.toFixed(1)} ms (right ${right.map((x) => x.toFixed(1)).join(', ')}; wrong ${wrong.map((x) => x.toFixed(1)).join(', ')})`,
    );
  });
});
