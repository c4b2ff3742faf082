/**
 * `[/settings/source] allowed signers`: a git source whose commits must be
 * signed (ssh signatures, checked with git verify-commit), served by
 * `git daemon` on loopback, the agent run as a process: a commit signed by
 * an allowed key is applied; an unsigned one and one signed by another key
 * are refused with the settings in force kept and the reason shown.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { startGitDaemon, type GitDaemon } from '../helpers/git-daemon.js';
import { sourceClient, type SourceClient, type SourceState } from '../helpers/source-client.js';

const PASSWORD = 'source-signed-password';

void describe('[/settings/source] allowed signers (signed commits, git daemon, agent as a process)', () => {
  let repo: GitDaemon;
  let dir: string;
  let agent: AgentProcess;
  let good: string;
  let other: string;
  let signed: string;

  let client: SourceClient;
  const pull = (): Promise<SourceState> => client.pull();
  const size = (): Promise<string | undefined> => client.value('/settings/log', 'buffer size');
  const file = (n: number): Record<string, string> => ({ 'agent.ini': `[/settings/log]\nbuffer size = ${n}\n` });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'source-signed-'));
    for (const name of ['good', 'other'])
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', join(dir, name)], {
        timeout: 10_000,
      });
    good = join(dir, 'good');
    other = join(dir, 'other');
    writeFileSync(
      join(dir, 'allowed_signers'),
      `test@example.invalid namespaces="git" ${readFileSync(`${good}.pub`, 'utf8')}`,
    );
    repo = await startGitDaemon();
    signed = repo.commit(file(1111), 'signed', good);
    agent = await startAgent({
      ini: `[/modules]\nWEBServer = enabled\n\n[/paths]\nstate = ${join(dir, 'state')}\n\n[/settings/default]\npassword = ${PASSWORD}\nallowed hosts = 127.0.0.1\n\n[/settings/WEB/server]\nport = 0s\nbind to = 127.0.0.1\n\n[/settings/source]\nurl = ${repo.url}\nref = main\npath = agent.ini\nallowed signers = ${join(dir, 'allowed_signers')}\ninterval = 3600\ntimeout = 10\n`,
    });
    client = sourceClient(await webPort(agent), PASSWORD);
  });

  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when before() failed
    await agent?.stop();
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when before() failed
    await repo?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  void it('applies a commit signed by an allowed key', async () => {
    const s = await client.firstPull();
    assert.equal(s.lastError, null);
    assert.equal(s.revision, signed);
    assert.equal(await size(), '1111');
  });

  void it('refuses an unsigned commit and one signed by another key; a good one applies again', async () => {
    const unsigned = repo.commit(file(2222), 'unsigned');
    let s = await pull();
    assert.match(s.lastError ?? '', new RegExp(`commit ${unsigned} is not signed by a key of`));
    assert.equal(await size(), '1111');
    const wrong = repo.commit(file(3333), 'wrong key', other);
    s = await pull();
    assert.match(s.lastError ?? '', new RegExp(`commit ${wrong} is not signed by a key of`));
    assert.equal(s.revision, signed);
    assert.equal(await size(), '1111');
    const fixed = repo.commit(file(4444), 'signed again', good);
    s = await pull();
    assert.equal(s.lastError, null);
    assert.equal(s.revision, fixed);
    assert.equal(await size(), '4444');
  });
});
