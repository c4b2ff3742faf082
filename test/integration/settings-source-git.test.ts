/**
 * `[/settings/source]` naming a file in a git repository served by Debian's
 * `git daemon` on loopback, the config-agent run as a process and asked through
 * its API: the first pull applies the host's file (path with `${host}`) at
 * the commit of `main`; an unchanged ref is one `git ls-remote` and no
 * fetch (unchanged); a new commit and a force-push back to an older one
 * are each applied with their commit id as the revision; a commit whose
 * file does not validate, or that lacks the file, is refused with the
 * settings in force kept; with the daemon gone the pull fails and the
 * settings stay, and once it is back the next pull succeeds.
 */
import { after, before, describe, it } from 'node:test';
import { execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { startGitDaemon, type GitDaemon } from '../helpers/git-daemon.js';
import { runAgentCli } from '../helpers/run-cli.js';
import { sourceClient, type SourceClient, type SourceState } from '../helpers/source-client.js';
import { Teardown } from '../helpers/teardown.js';

const PASSWORD = 'source-git-password';

const hostFile = (size: number): string => `[/settings/log]\nbuffer size = ${size}\n`;

void describe('[/settings/source] from a git repository (git daemon, agent as a process)', () => {
  let repo: GitDaemon;
  let state: string;
  let agent: AgentProcess;
  let first: string;
  const made = new Teardown();
  after(() => made.close());

  let client: SourceClient;
  const pull = (): Promise<SourceState> => client.pull();
  const size = (): Promise<string | undefined> => client.value('/settings/log', 'buffer size');

  before(async () => {
    repo = made.add(await startGitDaemon(), (r) => r.close());
    first = repo.commit({ 'hosts/web01.ini': hostFile(1111), 'hosts/db01.ini': hostFile(2222) }, 'first');
    state = mkdtempSync(join(tmpdir(), 'source-git-state-'));
    made.defer(() => rmSync(state, { recursive: true, force: true }));
    agent = made.add(
      await startAgent({
        ini: `[/modules]\nWEBServer = enabled\n\n[/paths]\nstate = ${state}\n\n[/settings/default]\npassword = ${PASSWORD}\nallowed hosts = 127.0.0.1\n\n[/settings/WEB/server]\nport = 0s\nbind to = 127.0.0.1\n\n[/settings/source]\nurl = ${repo.url}\nref = main\npath = hosts/\${host}.ini\ninterval = 3600\ntimeout = 10\n`,
        env: { AGENT_HOSTNAME: 'web01.example.org' },
      }),
      (a) => a.stop(),
    );
    client = sourceClient(await webPort(agent), PASSWORD);
  });

  void it('applies the host file at the commit of main, the commit id as the revision', async () => {
    const s = await client.firstPull();
    assert.equal(s.lastError, null);
    assert.equal(s.revision, first);
    assert.equal(await size(), '1111');
  });

  void it('an unchanged ref is no change (ls-remote only)', async () => {
    const s = await pull();
    assert.equal(s.pulls.unchanged, 1);
    assert.equal(s.revision, first);
  });

  void it('a new commit is applied; a force-push back to the first commit too', async () => {
    const second = repo.commit({ 'hosts/web01.ini': hostFile(3333) }, 'second');
    let s = await pull();
    assert.equal(s.revision, second);
    assert.equal(await size(), '3333');
    repo.forcePush(first);
    s = await pull();
    assert.equal(s.lastError, null);
    assert.equal(s.revision, first);
    assert.equal(await size(), '1111');
  });

  void it('a commit whose file does not validate, or lacks it, is refused; the settings stay', async () => {
    repo.commit({ 'hosts/web01.ini': '[/settings/log]\nbuffer size = lots\n' }, 'broken');
    let s = await pull();
    assert.match(s.lastError ?? '', /are not applied: 1 problem/);
    assert.equal(s.revision, first);
    assert.equal(await size(), '1111');
    repo.commit({ 'hosts/web01.ini': null }, 'remove web01');
    s = await pull();
    assert.match(s.lastError ?? '', /has no file hosts\/web01\.ini/);
    assert.equal(await size(), '1111');
  });

  void it('with the daemon gone the pull fails and the settings stay; back, it pulls again', async () => {
    const fixed = repo.commit({ 'hosts/web01.ini': hostFile(4444) }, 'fixed');
    await repo.stop();
    let s = await pull();
    assert.match(s.lastError ?? '', /AGENT_ERR_SOURCE_PULL|failed: git ls-remote/);
    assert.equal(await size(), '1111');
    await repo.start();
    s = await pull();
    assert.equal(s.lastError, null);
    assert.equal(s.revision, fixed);
    assert.equal(await size(), '4444');
  });

  void it('config-agent settings plan --source shows what the next pull would change, and applies nothing', async () => {
    const inForce = (await pull()).revision;
    const next = repo.commit(
      { 'hosts/web01.ini': `${hostFile(6666)}\n[/modules]\nCheckHelpers = enabled\n` },
      'plan me',
    );
    // The CLI is the same host as the agent: the same ${host}.
    process.env.AGENT_HOSTNAME = 'web01.example.org';
    const r = await runAgentCli(['settings', 'plan', '--source', '--settings', agent.settingsFile]).finally(
      () => delete process.env.AGENT_HOSTNAME,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.ok(
      r.stdout.includes(`source ${repo.url}: revision ${next} (in the settings now: ${inForce ?? ''})`),
      r.stdout,
    );
    assert.match(r.stdout, /^CheckHelpers\s+load\b/m);
    assert.match(r.stdout, /^agent\s+apply\b.*\[\/settings\/log\]/m);
    assert.equal(await size(), '4444', 'nothing applied');
  });
  void it('config-agent settings pull as root works on a cache repository the agent user owns (safe.directory)', async () => {
    // As on a packaged host: the cache belongs to config-agent, an admin runs `sudo config-agent settings pull`.
    execFileSync('chown', ['-R', '65534:65534', join(state, 'settings-source')]);
    const next = repo.commit({ 'hosts/web01.ini': hostFile(5555) }, 'pulled by root');
    process.env.AGENT_HOSTNAME = 'web01.example.org';
    const r = await runAgentCli(['settings', 'pull', '--settings', agent.settingsFile]).finally(
      () => delete process.env.AGENT_HOSTNAME,
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.doesNotMatch(r.stderr, /dubious ownership/);
    assert.ok(r.stdout.includes(next), r.stdout);
  });
});
