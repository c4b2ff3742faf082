/**
 * `[/settings/source] allowed signers` for a file pulled over https from
 * Debian's nginx (TLS, a private CA) on loopback, the config-agent run as a
 * process, keys made in the test by ssh-keygen: the file's detached
 * signature (`ssh-keygen -Y sign -n agent-settings`, served at URL.sig) is
 * checked with `ssh-keygen -Y verify`. A good signature applies the file;
 * a stale (bad) one, a missing one, one by a key not allowed and one made
 * for another namespace are refused (AGENT_ERR_SOURCE_SIGNATURE in the
 * status, the log and the failures metric), the settings in force kept;
 * `signature url` names another place; a cached pull made before
 * signatures were required is fetched and checked again; a remote include
 * needs its own signature.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replaceFile, startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { certDir, type CertDir } from '../helpers/agent-certs.js';
import { serve, startNginx, type Nginx } from '../helpers/nginx-daemon.js';
import { sourceClient, type SourceClient, type SourceState } from '../helpers/source-client.js';
import { allowedSigners, sshKey, sshSign } from '../helpers/signing-keys.js';
import { Teardown } from '../helpers/teardown.js';
import { waitUntil } from '../helpers/wait-until.js';

const PASSWORD = 'source-sig-password';
const NAMESPACE = 'agent-settings';
/** A pulled file; its length differs with `n` (nginx's ETag is the mtime and size; several are written in one second). */
const text = (n: number): string => `; ${'.'.repeat(n / 100)}\n[/settings/log]\nbuffer size = ${n}\n`;

void describe('[/settings/source] detached ssh signature over https (nginx, agent as a process)', () => {
  let certs: CertDir;
  let nginx: Nginx;
  let dir: string;
  let agent: AgentProcess;
  let client: SourceClient;
  let good: string;
  let other: string;
  let signers: string;
  let ca: string;
  const made = new Teardown();
  after(() => made.close());

  const ini = (source: string): string =>
    `[/modules]\nWEBServer = enabled\n\n[/paths]\nstate = ${join(dir, 'state')}\n\n[/settings/default]\npassword = ${PASSWORD}\nallowed hosts = 127.0.0.1\n\n[/settings/WEB/server]\nport = 0s\nbind to = 127.0.0.1\n\n[/settings/source]\nurl = ${nginx.httpsBase}/agent.ini\nca = ${ca}\ninterval = 3600\ntimeout = 5\n${source}`;
  /** Publish `n` with the signature `sig` makes of it (null: no signature file). */
  const publish = (n: number, sig: ((body: string) => string) | null, at = 'agent.ini.sig'): void => {
    const body = text(n);
    rmSync(join(nginx.www, at), { force: true });
    serve(nginx, 'agent.ini', body);
    if (sig) serve(nginx, at, sig(body));
  };
  const size = (): Promise<string | undefined> => client.value('/settings/log', 'buffer size');
  const refused = async (why: RegExp): Promise<SourceState> => {
    const before = (await client.status()).pulls.failed;
    const from = agent.mark();
    const s = await client.pull();
    assert.match(s.lastError ?? '', /their signature does not hold/);
    assert.match(s.lastError ?? '', why);
    assert.equal(s.pulls.failed, before + 1);
    await agent.waitForLog(/error +agent:settings-source: AGENT_ERR_SOURCE_SIGNATURE: /, 5_000, from);
    assert.match(
      (await client.api('/api/v1/metrics')).body,
      new RegExp(`agent_settings_pull_failures_total ${before + 1}\\n`),
    );
    return s;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'source-sig-'));
    made.defer(() => rmSync(dir, { recursive: true, force: true }));
    certs = made.add(certDir(), (c) => c.remove());
    const authority = certs.ca('source-sig-ca');
    ca = authority.cert;
    nginx = made.add(await startNginx({ tls: certs.issue(authority, 'source-sig-server', 'server') }), (n) =>
      n.close(),
    );
    good = sshKey(dir, 'good');
    other = sshKey(dir, 'other');
    signers = allowedSigners(join(dir, 'allowed_signers'), { 'fleet@example.invalid': good });
    // First unsigned, pulled and cached before signatures are required.
    publish(1000, null);
    agent = made.add(await startAgent({ ini: ini('') }), (a) => a.stop());
    client = sourceClient(await webPort(agent), PASSWORD);
    assert.equal((await client.firstPull()).lastError, null);
    assert.equal(await size(), '1000');
  });

  void it('signatures now required: the cached unsigned pull is fetched again and refused without its .sig', async () => {
    const full = (): number => nginx.accessLines().filter((l) => l.startsWith('200 GET /agent.ini ')).length;
    const fullBefore = full();
    const from = agent.mark();
    replaceFile(agent.settingsFile, ini(`allowed signers = ${signers}\n`));
    await agent.waitForLog(/AGENT_ERR_SOURCE_SIGNATURE: .*no signature at \S+agent\.ini\.sig \(HTTP 404/, 15_000, from);
    assert.equal(await size(), '1000');
    await waitUntil(() => full() > fullBefore, 5_000, 'an unconditional GET of the file (200, not 304)');
  });

  void it('a good signature by an allowed key applies the file', async () => {
    publish(1100, (b) => sshSign(good, b, NAMESPACE));
    const from = agent.mark();
    const s = await client.pull();
    assert.equal(s.lastError, null);
    assert.equal(await size(), '1100');
    await agent.waitForLog(/applied revision \S+, signed by fleet@example\.invalid/, 5_000, from);
    const meta = JSON.parse(readFileSync(join(dir, 'state', 'settings-source', 'pulled.json'), 'utf8')) as {
      signedBy: string;
    };
    assert.equal(meta.signedBy, 'fleet@example.invalid');
    // Unchanged: a 304, nothing verified again.
    assert.equal((await client.pull()).pulls.unchanged, s.pulls.unchanged + 1);
  });

  void it('a stale signature (of the previous text) is refused', async () => {
    const stale = sshSign(good, text(1100), NAMESPACE);
    publish(1200, () => stale);
    await refused(/agent\.ini\.sig does not verify/);
    assert.equal(await size(), '1100');
  });

  void it('a missing signature is refused', async () => {
    publish(1300, null);
    await refused(/no signature at \S+agent\.ini\.sig \(HTTP 404/);
    assert.equal(await size(), '1100');
  });

  void it('a signature by a key that is not allowed is refused', async () => {
    publish(1400, (b) => sshSign(other, b, NAMESPACE));
    await refused(/made by a key that is not in/);
    assert.equal(await size(), '1100');
  });

  void it('a signature made for another namespace (git) is refused', async () => {
    publish(1500, (b) => sshSign(good, b, 'git'));
    await refused(/does not verify/);
    assert.equal(await size(), '1100');
  });

  void it('signature url names another place', async () => {
    publish(1600, (b) => sshSign(good, b, NAMESPACE), 'sigs/agent.sig');
    const from = agent.mark();
    replaceFile(
      agent.settingsFile,
      ini(`allowed signers = ${signers}\nsignature url = ${nginx.httpsBase}/sigs/agent.sig\n`),
    );
    await agent.waitForLog(/applied revision \S+, signed by fleet@example\.invalid/, 15_000, from);
    assert.equal(await size(), '1600');
  });

  void it('a remote include needs its own signature (its URL + .sig) too', async () => {
    const extra = `${nginx.httpsBase}/extra.ini`;
    serve(nginx, 'extra.ini', text(1700));
    const from = agent.mark();
    replaceFile(
      agent.settingsFile,
      ini(
        `allowed signers = ${signers}\nsignature url = ${nginx.httpsBase}/sigs/agent.sig\n\n[/includes]\nextra = ${extra}\n`,
      ),
    );
    await agent.waitForLog(/AGENT_ERR_SOURCE_SIGNATURE: .*extra\.ini\.sig \(HTTP 404/, 15_000, from);
    assert.equal(await size(), '1600');
    serve(nginx, 'extra.ini.sig', sshSign(good, text(1700), NAMESPACE));
    const s = await client.pull();
    assert.equal(s.lastError, null);
    assert.equal(await size(), '1700', 'the signed include, over the source file');
  });
});
