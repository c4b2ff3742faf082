/**
 * No rollback, a verified cache (issue 37, item 8), the config-agent run as a
 * process against real servers on loopback, keys made by ssh-keygen:
 * - git (git daemon, ssh-signed commits): a force-push back to an older
 *   signed commit is refused (AGENT_ERR_SOURCE_ROLLBACK), the settings in
 *   force kept, until `allow rollback = 1`;
 * - https (nginx, detached ssh signatures): an older signed file served
 *   again with its old `.sig` is refused the same way;
 * - at start, a cached pull whose text was changed in the state folder is
 *   not used (AGENT_ERR_SOURCE_CACHE_UNVERIFIED), for both kinds: a
 *   changed git file, and an https file whose description was changed to
 *   match (its kept signature no longer verifies). The agent starts
 *   without it and pulls at once.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replaceFile, startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { certDir } from '../helpers/agent-certs.js';
import { startGitDaemon, type GitDaemon } from '../helpers/git-daemon.js';
import { serve, startNginx, type Nginx } from '../helpers/nginx-daemon.js';
import { allowedSigners, sshKey, sshSign } from '../helpers/signing-keys.js';
import { sourceClient, type SourceClient } from '../helpers/source-client.js';
import { Teardown } from '../helpers/teardown.js';
import { waitUntil } from '../helpers/wait-until.js';

const PASSWORD = 'rollback-password';
const NAMESPACE = 'agent-settings';
/** A pulled file; its length differs with `n` (nginx's ETag is the mtime and size). */
const text = (n: number): string => `; ${'.'.repeat(n / 100)}\n[/settings/log]\nbuffer size = ${n}\n`;

interface Running {
  agent: AgentProcess;
  client: SourceClient;
}

async function agentOn(ini: string): Promise<Running> {
  const agent = await startAgent({ ini });
  return { agent, client: sourceClient(await webPort(agent), PASSWORD) };
}

function bootIni(state: string, source: string): string {
  return `[/modules]\nWEBServer = enabled\n\n[/paths]\nstate = ${state}\n\n[/settings/default]\npassword = ${PASSWORD}\nallowed hosts = 127.0.0.1\n\n[/settings/WEB/server]\nport = 0s\nbind to = 127.0.0.1\n\n[/settings/source]\ninterval = 3600\ntimeout = 10\n${source}`;
}

/** Replace a cached text and make its description match it, as someone who can write the state folder would. */
function forgeCache(state: string, forged: string): void {
  const folder = join(state, 'settings-source');
  writeFileSync(join(folder, 'pulled.ini'), forged);
  const meta = JSON.parse(readFileSync(join(folder, 'pulled.json'), 'utf8')) as Record<string, unknown>;
  meta.sha256 = createHash('sha256').update(forged).digest('hex');
  writeFileSync(join(folder, 'pulled.json'), JSON.stringify(meta));
}

void describe('signed sources refuse a rollback and verify their cache at start (agent as a process)', () => {
  let dir: string;
  let good: string;
  let signers: string;
  const made = new Teardown();
  after(() => made.close());
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'rollback-'));
    made.defer(() => rmSync(dir, { recursive: true, force: true }));
    good = sshKey(dir, 'good');
    signers = allowedSigners(join(dir, 'allowed_signers'), { 'fleet@example.invalid': good });
  });

  void describe('git', () => {
    let repo: GitDaemon;
    let run: Running;
    let state: string;
    let source: string;
    const size = (): Promise<string | undefined> => run.client.value('/settings/log', 'buffer size');
    let first: string;

    before(async () => {
      state = join(dir, 'git-state');
      repo = made.add(await startGitDaemon(), (r) => r.close());
      first = repo.commit({ 'agent.ini': text(1100) }, 'first', good);
      source = `url = ${repo.url}\npath = agent.ini\nref = main\nallowed signers = ${signers}\n`;
      run = await agentOn(bootIni(state, source));
      assert.equal((await run.client.firstPull()).revision, first);
    });
    after(() => run.agent.stop());

    void it('refuses a force-push back to an older signed commit, until allow rollback is set', async () => {
      const second = repo.commit({ 'agent.ini': text(1200) }, 'second', good);
      assert.equal((await run.client.pull()).revision, second);
      assert.equal(await size(), '1200');
      repo.forcePush(first);
      const from = run.agent.mark();
      const s = await run.client.pull();
      assert.match(
        s.lastError ?? '',
        new RegExp(`refused as a rollback: commit ${first} does not descend from ${second}`),
      );
      await run.agent.waitForLog(/error +agent:settings-source: AGENT_ERR_SOURCE_ROLLBACK: /, 5_000, from);
      assert.equal(s.revision, second);
      assert.equal(await size(), '1200');
      replaceFile(run.agent.settingsFile, bootIni(state, `${source}allow rollback = 1\n`));
      await waitUntil(async () => (await run.client.pull()).revision === first, 10_000, 'the rollback, allowed');
      assert.equal((await run.client.status()).lastError, null);
      assert.equal(await size(), '1100');
    });

    void it('at start, a cached file changed in the state folder is not used; the agent pulls at once', async () => {
      await run.agent.stop();
      // A value no port can be, matched only as a whole number: the log's commit ids, pids and
      // ports are digits and hex too, and a bare '9999' was found inside one of them.
      forgeCache(state, '[/settings/log]\nbuffer size = 876543\n');
      run = await agentOn(bootIni(state, source));
      await run.agent.waitForLog(
        /AGENT_ERR_SOURCE_CACHE_UNVERIFIED: the cached pull of \S+ is not used: it is not agent\.ini of commit /,
      );
      assert.notEqual(await size(), '876543');
      assert.equal((await run.client.firstPull()).revision, first);
      assert.equal(await size(), '1100');
      assert.doesNotMatch(run.agent.logs(), /(?<![0-9a-f])876543(?![0-9a-f])/i, 'the forged value never in force');
    });
  });

  void describe('https', () => {
    let nginx: Nginx;
    let run: Running;
    let state: string;
    let source: string;
    const size = (): Promise<string | undefined> => run.client.value('/settings/log', 'buffer size');
    const publish = (body: string, sig: string): void => {
      serve(nginx, 'agent.ini', body);
      serve(nginx, 'agent.ini.sig', sig);
    };

    before(async () => {
      state = join(dir, 'https-state');
      const certs = made.add(certDir(), (c) => c.remove());
      const authority = certs.ca('rollback-ca');
      nginx = made.add(await startNginx({ tls: certs.issue(authority, 'rollback-server', 'server') }), (n) =>
        n.close(),
      );
      publish(text(1000), sshSign(good, text(1000), NAMESPACE));
      source = `url = ${nginx.httpsBase}/agent.ini\nca = ${authority.cert}\nallowed signers = ${signers}\n`;
      run = await agentOn(bootIni(state, source));
      assert.equal((await run.client.firstPull()).lastError, null);
      assert.equal(await size(), '1000');
    });
    after(() => run.agent.stop());

    void it('refuses an older signed file served again with its old signature', async () => {
      const oldSig = sshSign(good, text(1000), NAMESPACE);
      publish(text(1100), sshSign(good, text(1100), NAMESPACE));
      assert.equal((await run.client.pull()).lastError, null);
      assert.equal(await size(), '1100');
      publish(text(1000), oldSig);
      const from = run.agent.mark();
      const s = await run.client.pull();
      assert.match(s.lastError ?? '', /refused as a rollback: this agent applied the same file before/);
      await run.agent.waitForLog(/AGENT_ERR_SOURCE_ROLLBACK: /, 5_000, from);
      assert.equal(await size(), '1100');
      // A new revision signed now goes through.
      publish(text(1300), sshSign(good, text(1300), NAMESPACE));
      assert.equal((await run.client.pull()).lastError, null);
      assert.equal(await size(), '1300');
    });

    void it('at start, a cached file and description changed together fail the kept signature and are not used', async () => {
      await run.agent.stop();
      forgeCache(state, '[/settings/log]\nbuffer size = 9999\n');
      run = await agentOn(bootIni(state, source));
      await run.agent.waitForLog(/AGENT_ERR_SOURCE_CACHE_UNVERIFIED: .* its signature does not verify/);
      assert.notEqual(await size(), '9999');
      assert.equal((await run.client.firstPull()).lastError, null);
      assert.equal(await size(), '1300');
    });
  });
});
