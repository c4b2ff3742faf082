/**
 * Black box (issue 11, item 3, file modes): files that hold a password hash
 * are not readable by other local users. `config-agent web add-user` runs as a
 * process with the loosest umask (000) against the settings file of a
 * running agent: a 0640 file stays 0640 (and the agent takes the new user),
 * a file made with --create is 0600, and no temporary file is left behind.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MAIN, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest } from '../helpers/web-client.js';
import { inRange } from '../../src/in-range.js';

/** `config-agent web …` under `umask 000`, the password on stdin; bounded by 30 s. */
function webCli(args: string[], password: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      '/bin/sh',
      ['-c', 'umask 000 && exec "$0" "$@"', process.execPath, MAIN, 'web', ...args, '--password-stdin'],
      { timeout: 30_000, env: { ...process.env, AGENT_LOG_LEVEL: 'error' } },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, out: `${stdout}${stderr}` });
      },
    );
    child.stdin?.end(`${password}\n`);
  });
}

void describe('files that hold passwords keep a private mode (agent process)', () => {
  let agent: AgentProcess;
  let base = '';
  const made = new Teardown();

  before(async () => {
    agent = made.add(
      await startAgent({
        ini: `[/modules]
WEBServer = enabled

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = root-pw
allowed hosts = 127.0.0.1

[/settings/web/roles]
viewer = info.get
`,
      }),
      (a) => a.stop(),
    );
    base = inRange(await agent.waitForLog(/web server listening on (https:\/\/127\.0\.0\.1:\d+)/), 1);
  });
  after(() => made.close());

  void it('add-user on a 0640 settings file keeps 0640, and the running agent takes the user', async () => {
    chmodSync(agent.settingsFile, 0o640);
    const r = await webCli(
      ['add-user', '--settings', agent.settingsFile, '--user', 'ann', '--role', 'viewer'],
      'ann-pw-1',
    );
    assert.equal(r.code, 0, r.out);
    assert.match(
      readFileSync(agent.settingsFile, 'utf8'),
      /\[\/settings\/web\/users\/ann\]\npassword = pbkdf2-sha256\$/,
    );
    assert.equal(statSync(agent.settingsFile).mode & 0o777, 0o640);
    assert.deepEqual(
      readdirSync(dirname(agent.settingsFile)).filter((n) => n.endsWith('.tmp')),
      [],
      'no temp file left',
    );
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await webRequest(`${base}/api/v1/info`, { user: 'ann', password: 'ann-pw-1' })).status;
      if (status !== 200) await new Promise((res) => setTimeout(res, 100));
    }
    assert.equal(status, 200);
  });

  void it('add-user --create makes a new file 0600 even under umask 000', async () => {
    const file = join(agent.dir, 'new-users.ini');
    const r = await webCli(
      ['add-user', '--settings', file, '--create', '--user', 'bob', '--role', 'viewer'],
      'bob-pw-1',
    );
    assert.equal(r.code, 0, r.out);
    assert.match(readFileSync(file, 'utf8'), /password = pbkdf2-sha256\$/);
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });
});
