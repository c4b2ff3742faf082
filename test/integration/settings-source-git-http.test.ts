/**
 * Settings from a git repository served over https by `git http-backend`
 * behind Debian's nginx with Debian's fcgiwrap (run by the test on a unix
 * socket, not as a service), all on loopback; commits signed with an ssh
 * key made by ssh-keygen in the test and `allowed signers` set. The agent
 * runs as a process; the local file names only the source (and the web
 * server for the API), the pulled host file (`hosts/${hostname}.ini`)
 * enables RemoteServer and an alias whose answer Debian's check_nrpe reads.
 * Signed commits apply, an unsigned one is refused, a force-push back to
 * an older commit is refused as a rollback until `allow rollback = 1`, the server going away keeps the last good
 * settings (and the agent says so), and the next commit is picked up once
 * it is back.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listenerPort, replaceFile, startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { certDir, type CertDir } from '../helpers/agent-certs.js';
import { startGitHttp, type GitHttp } from '../helpers/git-http.js';
import { checkNrpe } from '../helpers/nrpe-daemon.js';
import { allowedSigners, sshKey } from '../helpers/signing-keys.js';
import { bootIni, nrpeAliasSettings, sourceClient, type SourceClient } from '../helpers/source-client.js';
import { Teardown } from '../helpers/teardown.js';
import { waitUntil } from '../helpers/wait-until.js';

const PASSWORD = 'source-git-http-password';
const HOST = 'db01.example.org';

/** The host file in the repository: RemoteServer on a port the system picks, an alias that says which revision runs. */
const hostFile = (revision: string): Record<string, string> => ({
  [`hosts/${HOST}.ini`]: nrpeAliasSettings(`from git, ${revision}`),
});

void describe('[/settings/source] git over https: git http-backend behind nginx and fcgiwrap (agent as a process)', () => {
  let certs: CertDir;
  let git: GitHttp;
  let dir: string;
  let agent: AgentProcess;
  let client: SourceClient;
  let nrpePort: number;
  let key: string;
  let first: string;
  let sourceLines: string[];
  const made = new Teardown();
  after(() => made.close());

  const answer = async (): Promise<string> => {
    const r = await checkNrpe(nrpePort, ['-c', 'check_pulled']);
    assert.equal(r.code, 0, r.out);
    return r.out;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'source-git-http-'));
    made.defer(() => rmSync(dir, { recursive: true, force: true }));
    certs = made.add(certDir(), (c) => c.remove());
    const authority = certs.ca('git-http-ca');
    git = made.add(await startGitHttp(certs.issue(authority, 'git-http-server', 'server')), (g) => g.close());
    key = sshKey(dir, 'fleet');
    const signers = allowedSigners(join(dir, 'allowed_signers'), { 'fleet@example.invalid': key });
    first = git.commit(hostFile('one'), 'one', key);
    sourceLines = [
      '[/settings/source]',
      `url = ${git.url}`,
      'ref = main',
      'path = hosts/${hostname}.ini',
      `ca = ${authority.cert}`,
      `allowed signers = ${signers}`,
      'interval = 3600',
      'timeout = 10',
    ];
    agent = await startAgent({
      env: { AGENT_HOSTNAME: HOST },
      ini: bootIni(join(dir, 'state'), PASSWORD, sourceLines),
    });
    made.add(agent, (a) => a.stop());
    client = sourceClient(await webPort(agent), PASSWORD);
  });

  void it('applies the signed commit at start: the API shows its id, check_nrpe answers from it', async () => {
    const s = await client.firstPull();
    assert.equal(s.lastError, null);
    assert.equal(s.revision, first);
    nrpePort = await listenerPort(agent, 'RemoteServer');
    assert.equal(await answer(), 'from git, one');
    assert.ok(
      git.nginx.accessLines().some((l) => /^200 (GET|POST) \/git\/fleet\.git\//.test(l)),
      'the pull went through nginx to git http-backend',
    );
  });

  void it('a new signed commit applies; an unsigned one is refused and the settings in force stay', async () => {
    const two = git.commit(hostFile('two'), 'two', key);
    let s = await client.pull();
    assert.equal(s.lastError, null);
    assert.equal(s.revision, two);
    assert.equal(await answer(), 'from git, two');
    const three = git.commit(hostFile('three'), 'three, unsigned');
    const from = agent.mark();
    s = await client.pull();
    assert.match(s.lastError ?? '', new RegExp(`commit ${three} is not signed`));
    await agent.waitForLog(/AGENT_ERR_SOURCE_SIGNATURE: /, 5_000, from);
    assert.equal(s.revision, two);
    assert.equal(await answer(), 'from git, two');
  });

  void it('a force-push back to the first commit is refused as a rollback; with allow rollback it applies', async () => {
    const inForce = (await client.status()).revision;
    git.forcePush(first);
    let s = await client.pull();
    assert.match(s.lastError ?? '', /are refused as a rollback: commit \S+ does not descend from/);
    assert.equal(s.revision, inForce);
    replaceFile(agent.settingsFile, bootIni(join(dir, 'state'), PASSWORD, [...sourceLines, 'allow rollback = 1']));
    await waitUntil(async () => (s = await client.pull()).revision === first, 10_000, 'the rollback, allowed');
    assert.equal(s.lastError, null);
    assert.equal(await answer(), 'from git, one');
  });

  void it('the server going away: the last good settings stay and the agent says so; once back, the next commit applies', async () => {
    await git.stop();
    const from = agent.mark();
    agent.proc.kill('SIGHUP');
    await agent.waitForLog(
      /AGENT_ERR_SOURCE_PULL: pulling the settings from \S+ failed: git ls-remote: .*keeping the settings in force/,
      15_000,
      from,
    );
    let s = await client.status();
    assert.match(s.lastError ?? '', /git ls-remote: /);
    assert.equal(s.revision, first);
    assert.equal(await answer(), 'from git, one');
    const five = git.commit(hostFile('five'), 'five', key);
    await git.start();
    s = await client.pull();
    assert.equal(s.lastError, null);
    assert.equal(s.revision, five);
    assert.equal(await answer(), 'from git, five');
  });
});
