/**
 * One layout of settings files on a host (issue 38, item 1), the config-agent run
 * as a process: the schemas' defaults < the pulled settings (served by
 * Debian's nginx on loopback) < the main file < `conf.d/*.ini` beside it,
 * in name order. A drop-in added while the agent runs applies by itself; a
 * bad one is refused with its file and line while the last good settings
 * stay; an API edit of a key a drop-in holds goes to that drop-in, a new
 * key to the main file, never to the pulled cache; a local key that
 * overrides a pulled one is warned about, naming both places; a
 * `[/settings/source]` written in a drop-in works as in the main file.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { serve, startNginx, type Nginx } from '../helpers/nginx-daemon.js';
import { sourceClient, type SourceClient } from '../helpers/source-client.js';
import { Teardown } from '../helpers/teardown.js';
import { waitUntil } from '../helpers/wait-until.js';
import { webRequest } from '../helpers/web-client.js';

const PASSWORD = 'drop-in-password';

interface Entry {
  path: string;
  key: string;
  value: string;
  origin?: string;
}

void describe('conf.d drop-ins above the main file, pulled settings below (agent as a process)', () => {
  let nginx: Nginx;
  let agent: AgentProcess;
  let client: SourceClient;
  let confD: string;
  const made = new Teardown();
  after(() => made.close());

  const entries = async (): Promise<Entry[]> =>
    (await client.api('/api/v1/settings/settings?origins=true')).json<Entry[]>();
  const entry = async (path: string, key: string): Promise<Entry | undefined> =>
    (await entries()).find((e) => e.path === path && e.key === key);
  const dropIn = (name: string, text: string): void => {
    mkdirSync(confD, { recursive: true });
    writeFileSync(join(confD, name), text);
  };

  before(async () => {
    nginx = made.add(await startNginx(), (n) => n.close());
    serve(
      nginx,
      'fleet.ini',
      '[/settings/log]\nbuffer size = 3000\n\n[/settings/WEB/server]\nmax body size = 3000000\n\n[/settings/NSClient/server]\ntimeout = 33\n',
    );
    const ini = [
      '[/modules]',
      'WEBServer = enabled',
      '[/paths]',
      'state = ${base-path}/state',
      '[/settings/default]',
      `password = ${PASSWORD}`,
      'allowed hosts = 127.0.0.1',
      '[/settings/WEB/server]',
      'port = 0s',
      'bind to = 127.0.0.1',
      'max body size = 1000000',
      '[/settings/log]',
      'level = info',
      '',
    ].join('\n');
    agent = await startAgent({
      ini,
      files: {
        'conf.d/10-first.ini': '[/settings/log]\nlevel = debug\n\n[/settings/NSClient/server]\ntimeout = 11\n',
        'conf.d/20-second.ini': `[/settings/NSClient/server]\ntimeout = 22\n\n[/settings/source]\nurl = ${nginx.base}/fleet.ini\ninterval = 3600\n`,
        'conf.d/notes.txt': '[/settings/log]\nlevel = error\n',
      },
    });
    made.add(agent, (a) => a.stop());
    confD = join(dirname(agent.settingsFile), 'conf.d');
    client = sourceClient(await webPort(agent), PASSWORD);
    assert.equal((await client.firstPull()).lastError, null);
  });

  void it('layers: a later drop-in over an earlier one over the main file over the pull; other files are not read', async () => {
    assert.deepEqual(await entry('/settings/NSClient/server', 'timeout'), {
      path: '/settings/NSClient/server',
      key: 'timeout',
      value: '22',
      origin: 'conf.d/20-second.ini:2',
    });
    assert.equal((await entry('/settings/log', 'level'))?.origin, 'conf.d/10-first.ini:2');
    // The pull is below the main file: its max body size loses, its buffer size (set nowhere else) is in force.
    assert.equal((await entry('/settings/WEB/server', 'max body size'))?.value, '1000000');
    assert.equal((await entry('/settings/log', 'buffer size'))?.value, '3000');
  });

  void it('a local key that overrides a pulled one is warned about, naming both places', async () => {
    const status = (await client.api('/api/v1/settings/status')).json<{
      warnings: { code: string; file: string; line: number; message: string }[];
    }>();
    const overridden = status.warnings.filter((w) => w.code === 'AGENT_WARN_PULLED_OVERRIDDEN');
    assert.deepEqual(overridden.map((w) => [w.file, w.line]).sort(), [
      ['agent.ini', 11],
      ['conf.d/20-second.ini', 2],
    ]);
    const body = overridden.find((w) => w.file === 'agent.ini');
    assert.match(
      body?.message ?? '',
      /\[\/settings\/WEB\/server\] max body size is set here and in the pulled settings \(line 5 there\)/,
    );
  });

  void it('a drop-in added while the agent runs applies by itself; a bad one is refused with file and line', async () => {
    dropIn('30-third.ini', '[/settings/NSClient/server]\ntimeout = 44\n');
    await waitUntil(
      async () => (await entry('/settings/NSClient/server', 'timeout'))?.value === '44',
      10_000,
      '30-third.ini applied',
    );
    const from = agent.mark();
    dropIn('40-bad.ini', '[/settings/NSClient/server]\ntimeout = soon\n');
    await agent.waitForLog(/40-bad\.ini:2/, 10_000, from);
    assert.equal((await entry('/settings/NSClient/server', 'timeout'))?.value, '44', 'the last good settings stay');
    rmSync(join(confD, '40-bad.ini'));
    await waitUntil(
      async () => (await client.api('/api/v1/settings/status')).json<{ lastResult: string }>().lastResult === 'ok',
      10_000,
      'the tree valid again',
    );
  });

  void it('an API edit goes to the drop-in that holds the key, a new key to the main file, never to the pulled cache', async () => {
    const put = async (path: string, key: string, value: string): Promise<string[]> => {
      const res = await webRequest(`https://127.0.0.1:${await webPort(agent)}/api/v1/settings`, {
        method: 'PUT',
        user: 'root',
        password: PASSWORD,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ path, key, value }),
        timeoutMs: 20_000,
      });
      assert.equal(res.status, 200, res.body);
      return res.json<{ files: string[] }>().files;
    };
    assert.match((await put('/settings/NSClient/server', 'timeout', '55')).join(), /conf\.d\/30-third\.ini/);
    assert.match(readFileSync(join(confD, '30-third.ini'), 'utf8'), /^timeout = 55$/m);
    // Held only by the pull: the edit goes to the main file, where it overrides the pulled value.
    const files = await put('/settings/log', 'buffer size', '4000');
    assert.deepEqual(
      files.map((f) => f.replace(/^.*\//, '')),
      ['agent.ini'],
    );
    assert.match(readFileSync(agent.settingsFile, 'utf8'), /^buffer size = 4000$/m);
    const cache = readFileSync(join(dirname(agent.settingsFile), 'state', 'settings-source', 'pulled.ini'), 'utf8');
    assert.match(cache, /^buffer size = 3000$/m, 'the pulled cache is never written');
  });
});
