/**
 * Signed git sources, served by `git daemon` on loopback, the config-agent run as
 * a process, keys made in the test by ssh-keygen and gpg:
 * - `allowed signers` (ssh): a commit signed by an allowed key is applied;
 *   an unsigned one and one signed by another key are refused
 *   (AGENT_ERR_SOURCE_SIGNATURE in the status, the log and the failures
 *   metric), the settings in force kept; a signed tag as the ref is
 *   checked by its own signature;
 * - `gpg keyring` (OpenPGP): a commit signed by a key of the keyring is
 *   applied, one signed by another OpenPGP key refused.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replaceFile, startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { startGitDaemon, type GitDaemon } from '../helpers/git-daemon.js';
import { sourceClient, type SourceClient } from '../helpers/source-client.js';
import { allowedSigners, closeGpg, gpgKey, sshKey, type GpgKey } from '../helpers/signing-keys.js';
import { Teardown } from '../helpers/teardown.js';

const PASSWORD = 'source-signed-password';
const file = (n: number): Record<string, string> => ({ 'agent.ini': `[/settings/log]\nbuffer size = ${n}\n` });

async function agentOn(
  dir: string,
  url: string,
  source: string,
): Promise<{ agent: AgentProcess; client: SourceClient }> {
  const agent = await startAgent({
    ini: `[/modules]\nWEBServer = enabled\n\n[/paths]\nstate = ${join(dir, 'state')}\n\n[/settings/default]\npassword = ${PASSWORD}\nallowed hosts = 127.0.0.1\n\n[/settings/WEB/server]\nport = 0s\nbind to = 127.0.0.1\n\n[/settings/source]\nurl = ${url}\npath = agent.ini\ninterval = 3600\ntimeout = 10\n${source}`,
  });
  return { agent, client: sourceClient(await webPort(agent), PASSWORD) };
}

void describe('[/settings/source] allowed signers (ssh-signed commits and tags, git daemon, agent as a process)', () => {
  let repo: GitDaemon;
  let dir: string;
  let agent: AgentProcess;
  let client: SourceClient;
  let good: string;
  let other: string;
  let signed: string;
  const made = new Teardown();
  after(() => made.close());
  const size = (): Promise<string | undefined> => client.value('/settings/log', 'buffer size');

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'source-signed-'));
    made.defer(() => rmSync(dir, { recursive: true, force: true }));
    good = sshKey(dir, 'good');
    other = sshKey(dir, 'other');
    const signers = allowedSigners(join(dir, 'allowed_signers'), { 'fleet@example.invalid': good });
    repo = made.add(await startGitDaemon(), (r) => r.close());
    signed = repo.commit(file(1111), 'signed', good);
    ({ agent, client } = made.add(await agentOn(dir, repo.url, `ref = main\nallowed signers = ${signers}\n`), (a) =>
      a.agent.stop(),
    ));
  });

  void it('applies a commit signed by an allowed key', async () => {
    const s = await client.firstPull();
    assert.equal(s.lastError, null);
    assert.equal(s.revision, signed);
    assert.equal(await size(), '1111');
  });

  void it('refuses an unsigned commit and one signed by another key (code in the log, counted); a good one applies again', async () => {
    const unsigned = repo.commit(file(2222), 'unsigned');
    let from = agent.mark();
    let s = await client.pull();
    assert.match(s.lastError ?? '', new RegExp(`signature does not hold: commit ${unsigned} is not signed`));
    await agent.waitForLog(new RegExp(`AGENT_ERR_SOURCE_SIGNATURE: .*commit ${unsigned} is not signed`), 5_000, from);
    assert.equal(await size(), '1111');
    const wrong = repo.commit(file(3333), 'wrong key', other);
    from = agent.mark();
    s = await client.pull();
    assert.match(s.lastError ?? '', new RegExp(`commit ${wrong} is signed by a key that is not trusted`));
    await agent.waitForLog(/AGENT_ERR_SOURCE_SIGNATURE: /, 5_000, from);
    assert.equal(s.revision, signed);
    assert.equal(s.pulls.failed, 2);
    assert.match((await client.api('/api/v1/metrics')).body, /agent_settings_pull_failures_total 2\n/);
    assert.equal(await size(), '1111');
    const fixed = repo.commit(file(4444), 'signed again', good);
    s = await client.pull();
    assert.equal(s.lastError, null);
    assert.equal(s.revision, fixed);
    assert.equal(await size(), '4444');
  });

  void it("a tag as the ref (a change of ref pulls at once): the tag's own signature counts", async () => {
    // An unsigned annotated tag of the signed commit in force: refused, though the commit is signed.
    repo.tag('release', 'unsigned tag');
    const from = agent.mark();
    replaceFile(agent.settingsFile, readFileSync(agent.settingsFile, 'utf8').replace('ref = main', 'ref = release'));
    await agent.waitForLog(/AGENT_ERR_SOURCE_SIGNATURE: .*tag [0-9a-f]{40} is not signed/, 15_000, from);
    assert.equal(await size(), '4444');
    const next = repo.commit(file(5555), 'to be tagged');
    repo.tag('release', 'signed tag', good);
    const s = await client.pull();
    assert.equal(s.lastError, null);
    assert.equal(s.revision, next, 'the revision is the commit the signed tag names');
    assert.equal(await size(), '5555');
  });
});

void describe('[/settings/source] gpg keyring (OpenPGP-signed commits, git daemon, agent as a process)', () => {
  let repo: GitDaemon;
  let dir: string;
  let client: SourceClient;
  let fleet: GpgKey;
  let stranger: GpgKey;
  let signed: string;
  const made = new Teardown();
  after(() => made.close());

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'source-gpg-'));
    made.defer(() => rmSync(dir, { recursive: true, force: true }));
    fleet = made.add(gpgKey(dir, 'fleet'), closeGpg);
    stranger = made.add(gpgKey(dir, 'stranger'), closeGpg);
    repo = made.add(await startGitDaemon(), (r) => r.close());
    signed = repo.commit(file(6666), 'gpg-signed', fleet);
    ({ client } = made.add(await agentOn(dir, repo.url, `ref = main\ngpg keyring = ${fleet.publicKeyring}\n`), (a) =>
      a.agent.stop(),
    ));
  });

  void it('applies a commit signed by a key of the keyring, refuses unsigned and unknown-key commits', async () => {
    let s = await client.firstPull();
    assert.equal(s.lastError, null);
    assert.equal(s.revision, signed);
    assert.equal(await client.value('/settings/log', 'buffer size'), '6666');
    const unknown = repo.commit(file(7777), 'signed by a stranger', stranger);
    s = await client.pull();
    assert.match(s.lastError ?? '', new RegExp(`commit ${unknown} is signed by a key that is not trusted`));
    const unsigned = repo.commit(file(8888), 'unsigned');
    s = await client.pull();
    assert.match(s.lastError ?? '', new RegExp(`commit ${unsigned} is not signed`));
    assert.equal(s.revision, signed);
    assert.equal(await client.value('/settings/log', 'buffer size'), '6666');
  });
});
