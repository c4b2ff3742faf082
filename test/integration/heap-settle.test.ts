/**
 * The agent gives back its start's memory right after `agent ready` (src/cli/heap-settle.ts):
 * one memory-reducing collection and malloc_trim, logged at debug level, and it keeps serving.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAgent, webPort } from '../helpers/agent-process.js';
import { webRequest } from '../helpers/web-client.js';

void test('run: the heap settles once after ready, and the agent serves on', async () => {
  const agent = await startAgent({
    ini: `[/modules]
CheckSystem = enabled
WEBServer = enabled

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = settle-secret
allowed hosts = 127.0.0.1
`,
    env: { AGENT_LOG_LEVEL: 'debug' },
  });
  try {
    const m = await agent.waitForLog(
      /heap settled after the start in ([\d.]+) ms \(malloc trimmed\): RSS ([\d.]+) → ([\d.]+) MB/,
      10_000,
    );
    const [ms, before, after] = [m[1], m[2], m[3]].map(Number) as [number, number, number];
    assert.ok(ms > 0, m[0]);
    // This start made its certificate (the key generation's garbage): there is memory to give back.
    assert.ok(after < before, m[0]);
    assert.equal(agent.logs().match(/heap settled/g)?.length, 1, 'once per process');
    const ca = readFileSync(join(agent.dir, 'security', 'certificate.pem'), 'utf8');
    const url = `https://127.0.0.1:${await webPort(agent)}/api/v1/queries/check_cpu/commands/execute`;
    const r = await webRequest(url, { user: 'root', password: 'settle-secret', ca });
    assert.equal(r.status, 200, r.body);
  } finally {
    await agent.stop();
  }
});
