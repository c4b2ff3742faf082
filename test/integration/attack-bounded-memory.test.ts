/**
 * Issue 37, item 7, memory (agent as a process; its resident memory read
 * from /proc/<pid>/status): a flood of long entries through POST
 * /api/v1/logs with `buffer size = 1000000` stays within the log buffer's
 * byte budget (the entries kept, and the process's resident memory with a
 * generous margin for garbage), a body over the route's cap is 413; a 4 MiB settings file
 * pulled from nginx (an `allowed hosts` list of 300,000 addresses) is
 * validated and applied without the ~100x memory it once took (2.7 GB).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { join } from 'node:path';
import type { AgentProcess } from '../helpers/agent-process.js';
import { startWebAgent } from '../helpers/nscp-clients.js';
import { startNginx, type Nginx } from '../helpers/nginx-daemon.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest, type WebResponse } from '../helpers/web-client.js';
import { defined } from '../helpers/defined.js';

const MB = 1024 * 1024;

/** Resident memory now and at its peak (VmRSS, VmHWM), in bytes. */
const memory = (pid: number): { rss: number; peak: number } => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
};

/** `[/settings/remote/server] allowed hosts` of distinct addresses, about `bytes` long in all. */
const hugeAllowedHosts = (bytes: number): string => {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const entry = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    parts.push(entry);
    size += entry.length + 1;
  }
  return `[/settings/remote/server]\nallowed hosts = ${parts.join(',')}\n`;
};

void describe('bounded memory (agent process)', () => {
  const made = new Teardown();
  let agent: AgentProcess;
  let base: string;
  let ca: string;
  let nginx: Nginx;
  const keepAlive = new Agent({ keepAlive: true, maxSockets: 4 });
  const root = (path: string, method = 'GET', body?: string): Promise<WebResponse> =>
    webRequest(`${base}${path}`, {
      ca,
      method,
      user: 'root',
      password: 'root-secret',
      agent: keepAlive,
      timeoutMs: 60_000,
      ...(body !== undefined ? { body, headers: { 'content-type': 'application/json' } } : {}),
    });

  before(async () => {
    nginx = made.add(await startNginx(), (n) => n.close());
    writeFileSync(join(nginx.www, 'huge.ini'), hugeAllowedHosts(4 * MB - 4096));
    ({ agent, base, ca } = made.add(
      await startWebAgent({
        ini: `[/modules]
WEBServer = enabled

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = root-secret

[/settings/log]
buffer size = 1000000

[/settings/source]
url = ${nginx.base}/huge.ini
interval = 86400
timeout = 30
`,
      }),
      (w) => w.agent.stop(),
    ));
    made.add(keepAlive, (a) => a.destroy());
  });
  after(() => made.close());

  void it('a 4 MiB pulled file is read without ~100x its size in memory', async () => {
    const pid = defined(agent.proc.pid, 'the agent pid');
    const res = await root('/api/v1/settings/pull', 'POST');
    assert.equal(res.status, 200, res.body);
    const source = res.json<{ source: { pulls: { changed: number }; revision: string | null } }>().source;
    assert.equal(source.pulls.changed, 1, res.body.slice(0, 500));
    const settings = await root('/api/v1/settings/settings/remote/server');
    assert.ok(settings.body.includes('10.0.0.1,10.0.0.2'), 'the pulled list is in force');
    const { peak } = memory(pid);
    // Its peak since start (the pull: fetch, validation, the reload): 2.7 GB before; now about 300 MB in all.
    assert.ok(peak < 600 * MB, `peak resident memory ${Math.round(peak / MB)} MB`);
  });

  void it('a flood of long log entries stays within the buffer budget; an oversized body is 413', async () => {
    const pid = defined(agent.proc.pid, 'the agent pid');
    const before = memory(pid).rss;
    // The largest message a post takes (4,000 characters outside Latin-1: two bytes each in memory, 8 KB of
    // UTF-8), 5,000 times: 20 M characters, over the buffer's budget of 16 Mi.
    const body = JSON.stringify({ level: 'info', message: 'ж'.repeat(4000) });
    let posted = 0;
    const end = performance.now() + 120_000;
    const worker = async (): Promise<void> => {
      while (posted < 5000 && performance.now() < end) {
        posted++;
        const res = await root('/api/v1/logs', 'POST', body);
        assert.equal(res.status, 200, res.body);
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    assert.equal(posted, 5000, 'every entry was posted in time');
    // What the buffer keeps is bounded by its budget (LOG_BUFFER_BUDGET: about 4,000 of these entries, 32 MiB)...
    const kept = Number((await root('/api/v1/logs?per_page=1')).headers['x-pagination-count']);
    assert.ok(kept > 0 && kept < 4500, `${kept} entries kept`);
    // ...and so is the process: the rest is garbage the collector takes back (a margin: V8 lets the heap grow).
    const grown = memory(pid).rss - before;
    assert.ok(grown < 300 * MB, `resident memory grew by ${Math.round(grown / MB)} MB`);
    const tooLarge = await root('/api/v1/logs', 'POST', JSON.stringify({ message: 'x'.repeat(17 * 1024) }));
    assert.equal(tooLarge.status, 413, tooLarge.body.slice(0, 300));
  });
});
