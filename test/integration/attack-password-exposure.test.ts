/**
 * Black box (issue 11, item 4): a local attacker reading the process list
 * while an admin sets passwords, and stored hashes of two generations. The
 * `config-agent web` commands run as processes with `--password-stdin`: the
 * password never appears in their command line (read from /proc while the
 * command waits for it); new hashes use 600,000 PBKDF2 iterations; a user
 * with an old 100,000-iteration hash still signs in to the running agent.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { MAIN, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest } from '../helpers/web-client.js';
import { hashPassword } from '../../src/web/password-hash.js';
import { inRange } from '../../src/in-range.js';

/** Run `config-agent web ...` with `input` on stdin; bounded by 60 s (600,000 PBKDF2 rounds on a loaded machine). */
function web(args: string[], input: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [MAIN, 'web', ...args],
      { timeout: 60_000, env: { ...process.env, AGENT_LOG_LEVEL: 'silent' } },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
      },
    );
    child.stdin?.end(input);
  });
}

void describe('passwords: kept out of the process list, stored with 600,000 iterations, old hashes still work (agent process)', () => {
  let agent: AgentProcess;
  let base: string;
  const made = new Teardown();

  before(async () => {
    const oldHash = await hashPassword('old-pw', 100_000);
    agent = made.add(
      await startAgent({
        ini: `[/modules]
WEBServer = enabled

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = root-pw
allowed hosts = 127.0.0.1

[/settings/web/users/olduser]
password = ${oldHash}
role = legacy
`,
      }),
      (a) => a.stop(),
    );
    base = inRange(await agent.waitForLog(/web server listening on (https:\/\/127\.0\.0\.1:\d+)/), 1);
  });
  after(() => made.close());

  async function status(user: string, password: string): Promise<number> {
    return (await webRequest(`${base}/api/v1/info`, { user, password })).status;
  }

  async function eventually(what: string, probe: () => Promise<boolean>): Promise<void> {
    const end = Date.now() + 15_000;
    for (let i = 0; i < 150 && Date.now() < end; i++) {
      if (await probe()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`timed out waiting for ${what}`);
  }

  void it('a user with an old 100,000-iteration hash still signs in', async () => {
    assert.equal(await status('olduser', 'old-pw'), 200);
    assert.equal(await status('olduser', 'wrong'), 403);
  });

  void it('add-user --password-stdin: the password is not in the command line while the command runs; the hash has 600,000 iterations', async () => {
    const secret = 'Ann-s3cret-from-stdin';
    const child = spawn(
      process.execPath,
      [
        MAIN,
        'web',
        'add-user',
        '--settings',
        agent.settingsFile,
        '--user',
        'ann',
        '--role',
        'legacy',
        '--password-stdin',
      ],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, AGENT_LOG_LEVEL: 'silent' },
      },
    );
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    await new Promise<void>((r) => child.once('spawn', () => r()));
    // What `ps` shows while the command waits for its password.
    const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
    assert.ok(cmdline.includes('--password-stdin'), cmdline.join(' '));
    assert.ok(!cmdline.some((a) => a.includes(secret)));
    child.stdin.end(`${secret}\n`);
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    assert.equal(await exited, 0);
    clearTimeout(killer);
    const text = readFileSync(agent.settingsFile, 'utf8');
    assert.match(
      text,
      /\[\/settings\/web\/users\/ann\]\npassword = pbkdf2-sha256\$600000\$[0-9a-f]{32}\$[0-9a-f]{64}\n/,
    );
    assert.ok(!text.includes(secret), 'only the hash is stored');
    await eventually('ann signs in', async () => (await status('ann', secret)) === 200);
    assert.equal(await status('ann', `${secret}\n`), 403, 'the line break is not part of the password');
  });

  void it("password --password-stdin sets root's password; install --password-stdin too; both forms at once are a usage error", async () => {
    const set = await web(['password', '--settings', agent.settingsFile, '--password-stdin'], 'root-from-stdin\r\n');
    assert.equal(set.code, 0, set.stderr);
    await eventually('the new root password', async () => (await status('root', 'root-from-stdin')) === 200);
    const install = await web(['install', '--settings', agent.settingsFile, '--password-stdin'], 'installed-pw');
    assert.equal(install.code, 0, install.stderr);
    // The settings already read ${file:state/web-password}: only that file changed, which the agent does not watch.
    assert.match(install.stdout, /uses the new password after its next reload/);
    agent.proc.kill('SIGHUP');
    await eventually('the installed root password', async () => (await status('root', 'installed-pw')) === 200);
    const both = await web(
      ['add-user', '--settings', agent.settingsFile, '--user', 'bob', '--password', 'x', '--password-stdin'],
      'y\n',
    );
    assert.equal(both.code, 2);
    assert.match(both.stderr, /give --password or --password-stdin, not both/);
    const empty = await web(['add-user', '--settings', agent.settingsFile, '--user', 'bob', '--password-stdin'], '\n');
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /read an empty password/);
    assert.doesNotMatch(readFileSync(agent.settingsFile, 'utf8'), /users\/bob/);
  });
});
