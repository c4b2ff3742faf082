/**
 * Black box, as an attacker would try it (issue 11, item 1): the agent runs
 * as a process with AgentServer (TLS, no ca), RemoteServer (NRPE with
 * arguments allowed), both clients and external scripts. The exploit of the
 * issue (upload a script with agent_exec CheckExternalScripts add, then run
 * it with agent_query) must fail; so must relaying through RemoteServer
 * (the remote_ and agent_ client queries) and wrapping a refused query in
 * check_negate. Check queries and scripts stay allowed; a refusal names the
 * setting and logs a line; setting the allow-list lets the exec through;
 * validation warns about exec commands and script arguments for peers that
 * are not authenticated.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { listenerPort, MAIN, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { editSettingsFile } from '../../src/settings/store/edit-ini.js';
import { inRange } from '../../src/in-range.js';

/** Run `agent <args>` as a process; bounded by 20 s. */
function agentCli(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, ...args],
      { timeout: 20_000, env: { ...process.env, AGENT_LOG_LEVEL: 'silent' } },
      (err, stdout) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, out: stdout.trim() });
      },
    );
  });
}
/** `config-agent client` with an empty settings file of its own (built-in defaults). */
const client = (args: string[]) => agentCli(['client', '--settings', CLIENT_INI, ...args]);
const CLIENT_INI = join(mkdtempSync(join(tmpdir(), 'attack-client-')), 'client.ini');
writeFileSync(CLIENT_INI, '');

void describe('protocol servers run only what the settings allow (agent process)', () => {
  let agent: AgentProcess;
  let agentPort = 0;
  let remotePort = 0;
  const made = new Teardown();
  // The client's folder was made when the file loaded; it goes last, after the agent.
  made.defer(() => rmSync(dirname(CLIENT_INI), { recursive: true, force: true }));

  before(async () => {
    agent = made.add(
      await startAgent({
        ini: `[/modules]
AgentServer = enabled
RemoteServer = enabled
AgentClient = enabled
RemoteClient = enabled
CheckHelpers = enabled
CheckExternalScripts = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/agent/server]
port = 0
bind to = 127.0.0.1

[/settings/remote/server]
port = 0
bind to = 127.0.0.1
use ssl = 0
allow arguments = 1

[/settings/external scripts/scripts]
check_hello = /bin/echo hello from a script
`,
        files: { 'scripts/.keep': '' },
      }),
      (a) => a.stop(),
    );
    agentPort = await listenerPort(agent, 'AgentServer');
    remotePort = await listenerPort(agent, 'RemoteServer');
  });
  after(() => made.close());

  void it('refuses the exploit of the issue: agent_exec CheckExternalScripts add, then agent_query pwn', async () => {
    const payload = Buffer.from('#!/bin/sh\necho "OK: pwned as $(id -un)"\n').toString('base64');
    const mark = agent.mark();
    const upload = await client([
      'agent_exec',
      '--host',
      '127.0.0.1',
      '--port',
      String(agentPort),
      '--command',
      'CheckExternalScripts',
      '--arguments=add',
      '--arguments=--script',
      '--arguments=pwn.sh',
      '--arguments=--content-base64',
      `--arguments=${payload}`,
    ]);
    assert.equal(upload.code, 3, upload.out);
    assert.equal(
      upload.out,
      'exec command CheckExternalScripts is not allowed over AgentServer: add it to allowed exec commands in [/settings/agent/server]',
    );
    assert.equal(existsSync(join(agent.dir, 'scripts', 'pwn.sh')), false, 'no script was written');
    assert.doesNotMatch(readFileSync(agent.settingsFile, 'utf8'), /pwn/, 'the settings file is unchanged');
    await agent.waitForLog(
      /refused exec command CheckExternalScripts from 127\.0\.0\.1: not in allowed exec commands of \[\/settings\/agent\/server\]/,
      5000,
      mark,
    );
    const run = await client(['agent_query', '--host', '127.0.0.1', '--port', String(agentPort), '--command', 'pwn']);
    assert.deepEqual(run, { code: 3, out: 'Unknown command(s): pwn' });
  });

  void it('keeps the check queries and scripts allowed over both protocols', async () => {
    assert.deepEqual(
      await client([
        'agent_query',
        '--host',
        '127.0.0.1',
        '--port',
        String(agentPort),
        '--command',
        'check_warning',
        '--arguments',
        'still',
        'here',
      ]),
      { code: 1, out: 'still here' },
    );
    assert.deepEqual(
      await client(['agent_query', '--host', '127.0.0.1', '--port', String(agentPort), '--command', 'check_hello']),
      { code: 0, out: 'hello from a script' },
    );
    assert.deepEqual(
      await client([
        'remote_query',
        '-H',
        '127.0.0.1',
        '-p',
        String(remotePort),
        '-n',
        '-c',
        'check_ok',
        '-a',
        'nrpe fine',
      ]),
      { code: 0, out: 'nrpe fine' },
    );
    assert.deepEqual(
      await client(['remote_query', '-H', '127.0.0.1', '-p', String(remotePort), '-n', '-c', 'check_hello']),
      { code: 0, out: 'hello from a script' },
    );
  });

  void it('refuses client queries over RemoteServer, also wrapped in check_negate or check_multi (no relay)', async () => {
    const mark = agent.mark();
    const relay = await client([
      'remote_query',
      '-H',
      '127.0.0.1',
      '-p',
      String(remotePort),
      '-n',
      '-c',
      'agent_exec',
      '-a',
      'host=127.0.0.1',
      `port=${agentPort}`,
      'command=CheckExternalScripts',
      'arguments=list',
    ]);
    assert.deepEqual(relay, {
      code: 3,
      out: 'query agent_exec is not allowed over RemoteServer: add it to allowed queries in [/settings/remote/server]',
    });
    await agent.waitForLog(
      /refused query agent_exec from 127\.0\.0\.1: not in allowed queries of \[\/settings\/remote\/server\]/,
      5000,
      mark,
    );
    const loop = await client([
      'remote_query',
      '-H',
      '127.0.0.1',
      '-p',
      String(remotePort),
      '-n',
      '-c',
      'REMOTE_QUERY',
      '-a',
      'host=127.0.0.1',
    ]);
    assert.equal(loop.code, 3);
    assert.match(
      loop.out,
      /^query REMOTE_QUERY is not allowed over RemoteServer/,
      'names are matched without regard to case',
    );
    const wrapped = await client([
      'remote_query',
      '-H',
      '127.0.0.1',
      '-p',
      String(remotePort),
      '-n',
      '-c',
      'check_negate',
      '-a',
      'command=agent_query',
      'unknown=ok',
      'arguments=--host=127.0.0.1',
      `arguments=--port=${agentPort}`,
      'arguments=--command=check_ok',
    ]);
    assert.equal(
      wrapped.out,
      'query agent_query is not allowed over RemoteServer: add it to allowed queries in [/settings/remote/server]',
      'the inner query is refused, not run',
    );
    const multi = await client([
      'remote_query',
      '-H',
      '127.0.0.1',
      '-p',
      String(remotePort),
      '-n',
      '-c',
      'check_multi',
      '-a',
      'command=check_ok fine',
      'command=remote_query --host=127.0.0.1',
    ]);
    assert.equal(multi.code, 3);
    assert.match(multi.out, /^fine, query remote_query is not allowed over RemoteServer/);
  });

  void it('lets exec commands through once allowed exec commands names them (applied without a restart)', async () => {
    await editSettingsFile(agent.settingsFile, [
      { op: 'set', section: '/settings/agent/server', key: 'allowed exec commands', value: 'checkexternal*' },
    ]);
    const end = Date.now() + 10_000;
    let listed = await client([
      'agent_exec',
      '--host',
      '127.0.0.1',
      '--port',
      String(agentPort),
      '--command',
      'CheckExternalScripts',
      '--arguments=list',
    ]);
    for (let i = 0; i < 100 && listed.code !== 0 && Date.now() < end; i++) {
      await new Promise((r) => setTimeout(r, 100));
      listed = await client([
        'agent_exec',
        '--host',
        '127.0.0.1',
        '--port',
        String(agentPort),
        '--command',
        'CheckExternalScripts',
        '--arguments=list',
      ]);
    }
    assert.equal(listed.code, 0, listed.out);
    assert.match(listed.out, /check_hello/);
    const other = await client([
      'agent_exec',
      '--host',
      '127.0.0.1',
      '--port',
      String(agentPort),
      '--command',
      'SomethingElse',
    ]);
    assert.match(other.out, /^exec command SomethingElse is not allowed over AgentServer/);
  });

  void it('validation warns when peers without authentication may run exec commands or scripts with arguments', async () => {
    const r = await agentCli(['settings', 'validate', agent.settingsFile, '--format', 'json']);
    assert.equal(r.code, 0, r.out);
    const warnings = inRange(
      (
        JSON.parse(r.out) as {
          files: { warnings: { code: string; key?: string; section?: string; message: string }[] }[];
        }
      ).files,
      0,
    ).warnings;
    const exec = warnings.find((w) => w.code === 'AGENT_WARN_UNAUTHENTICATED_EXEC');
    assert.ok(exec, JSON.stringify(warnings));
    assert.equal(exec.key, 'allowed exec commands');
    assert.match(
      exec.message,
      /\[\/settings\/agent\/server\] lets peers that are not authenticated \(no ca\) run exec commands \(allowed exec commands = checkexternal\*\)/,
    );
    assert.equal(
      warnings.some((w) => w.code === 'AGENT_WARN_UNAUTHENTICATED_SCRIPT_ARGUMENTS'),
      false,
      'script arguments are off',
    );
    await editSettingsFile(agent.settingsFile, [
      { op: 'set', section: '/settings/external scripts', key: 'allow arguments', value: '1' },
    ]);
    const again = await agentCli(['settings', 'validate', agent.settingsFile, '--format', 'json']);
    const args = inRange(
      (
        JSON.parse(again.out) as {
          files: { warnings: { code: string; section?: string; key?: string; message: string }[] }[];
        }
      ).files,
      0,
    ).warnings.filter((w) => w.code === 'AGENT_WARN_UNAUTHENTICATED_SCRIPT_ARGUMENTS');
    // Each at the allow arguments line that causes it: RemoteServer's own, the scripts' one for AgentServer.
    assert.deepEqual(args.map((w) => `${w.section} ${w.key}`).sort(), [
      '/settings/external scripts allow arguments',
      '/settings/remote/server allow arguments',
    ]);
    assert.match(
      args.find((w) => w.section === '/settings/external scripts')?.message ?? '',
      /^\[\/settings\/agent\/server\] lets peers/,
    );
    assert.match(inRange(args, 0).message, /run scripts with arguments \(check_hello\)/);
  });
});
