/**
 * A fix lands (issue 39, item 2), the config-agent run as a process pulling from
 * Debian's nginx on loopback with `interval = 5`: a pulled file refused
 * for its content (it does not validate) is polled again at the interval,
 * however often it is refused, so the commit that fixes it is in force
 * within one interval (+10% jitter); only a server that fails (stopped)
 * makes the polls back off, doubling the wait from the second failure in a
 * row on. A same-size edit within the second of the last pull (nginx's ETag
 * and Last-Modified unchanged) is seen: such validators are weak (RFC 9110
 * 8.8.2.2) and are not sent back.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { serve, startNginx, type Nginx } from '../helpers/nginx-daemon.js';
import { bootIni, sourceClient, type SourceClient, type SourceState } from '../helpers/source-client.js';
import { Teardown } from '../helpers/teardown.js';
import { waitUntil } from '../helpers/wait-until.js';

const PASSWORD = 'fix-lands-password';
const INTERVAL_S = 5;

/** Seconds from now to the next poll the status announces. */
function waitOf(s: SourceState & { nextPull?: string | null }): number {
  return (Date.parse(s.nextPull ?? '') - Date.now()) / 1000;
}

void describe('[/settings/source] a refused file is polled at the interval, a failing server backs off', () => {
  let nginx: Nginx;
  let agent: AgentProcess;
  let client: SourceClient;
  const made = new Teardown();
  after(() => made.close());
  const size = (): Promise<string | undefined> => client.value('/settings/log', 'buffer size');

  before(async () => {
    nginx = made.add(await startNginx(), (n) => n.close());
    serve(nginx, 'fleet.ini', '[/settings/log]\nbuffer size = 1000\n');
    agent = made.add(
      await startAgent({
        ini: bootIni(join('${base-path}', 'state'), PASSWORD, [
          '[/settings/source]',
          `url = ${nginx.base}/fleet.ini`,
          `interval = ${INTERVAL_S}`,
          'max backoff = 3600',
        ]),
      }),
      (a) => a.stop(),
    );
    client = sourceClient(await webPort(agent), PASSWORD);
    assert.equal((await client.firstPull()).lastError, null);
  });

  void it('a refused file: every next poll within the interval; the fix is in force within one interval', async () => {
    serve(nginx, 'fleet.ini', '[/settings/log]\nbuffer size = lots\n');
    for (let i = 0; i < 4; i++) {
      const s = await client.pull();
      assert.match(s.lastError ?? '', /are not applied/);
      assert.ok(waitOf(s) <= INTERVAL_S * 1.1 + 0.5, `refusal ${i + 1}: next poll in ${waitOf(s)} s`);
    }
    assert.equal(await size(), '1000', 'the last good settings stay');
    serve(nginx, 'fleet.ini', '[/settings/log]\nbuffer size = 2000\n');
    const pushed = Date.now();
    await waitUntil(async () => (await size()) === '2000', (INTERVAL_S * 1.1 + 2) * 1000, 'the fix, by the poll alone');
    assert.ok((Date.now() - pushed) / 1000 <= INTERVAL_S * 1.1 + 2);
  });

  void it('a same-size edit within the second of the last pull is not missed (weak validators are not sent back)', async () => {
    const file = join(nginx.www, 'fleet.ini');
    serve(nginx, 'fleet.ini', '[/settings/log]\nbuffer size = 3000\n');
    const { mtime } = statSync(file);
    assert.equal((await client.pull()).lastError, null);
    assert.equal(await size(), '3000');
    // The same size and the same modification time: nginx's ETag and Last-Modified do not change.
    serve(nginx, 'fleet.ini', '[/settings/log]\nbuffer size = 4000\n');
    utimesSync(file, mtime, mtime);
    assert.equal((await client.pull()).lastError, null);
    assert.equal(await size(), '4000');
    assert.ok(
      !nginx.accessLines().some((l) => l.startsWith('304 GET /fleet.ini')),
      'no conditional request on validators of the same second',
    );
  });

  void it('a stopped server: the wait doubles from the second failure in a row', async () => {
    await nginx.stop();
    const first = await client.pull();
    const second = await client.pull();
    await nginx.start();
    assert.match(second.lastError ?? '', /failed/);
    assert.ok(waitOf(first) <= INTERVAL_S * 1.1 + 0.5, `after one failure: ${waitOf(first)} s`);
    assert.ok(waitOf(second) >= INTERVAL_S * 2 * 0.9 - 0.5, `after two failures in a row: ${waitOf(second)} s`);
  });
});
