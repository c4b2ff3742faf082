/**
 * `[/settings/source]` over TLS from Debian's nginx on loopback, the agent
 * run as a process: the server is verified against `ca`; without it the
 * pull fails (a private CA is not the system's) and the settings stay;
 * `insecure = true` pulls and is warned about; a plain http:// URL is
 * warned about; a redirect from https to http is refused.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { certDir, type CertDir } from '../helpers/agent-certs.js';
import { serve, startNginx, type Nginx } from '../helpers/nginx-daemon.js';
import { webRequest } from '../helpers/web-client.js';
import type { SourceState as Source } from '../helpers/source-client.js';
import { waitUntil } from '../helpers/wait-until.js';

const PASSWORD = 'source-tls-password';

void describe('[/settings/source] over TLS (agent as a process)', () => {
  let certs: CertDir;
  let ca: string;
  let nginx: Nginx;
  let state: string;

  before(async () => {
    certs = certDir();
    const authority = certs.ca('source-ca');
    ca = authority.cert;
    nginx = await startNginx({
      tls: certs.issue(authority, 'source-server', 'server'),
      locations: '    location = /down.ini { return 302 http://127.0.0.1/agent.ini; }',
    });
    serve(nginx, 'agent.ini', '[/settings/log]\nbuffer size = 4321\n');
    state = mkdtempSync(join(tmpdir(), 'source-tls-state-'));
  });

  after(async () => {
    await nginx.close();
    certs.remove();
    rmSync(state, { recursive: true, force: true });
  });

  /** Start an agent on `source` (the [/settings/source] lines), wait for its first pull, return its status and the agent. */
  const run = async (source: string): Promise<{ s: Source; agent: AgentProcess; size: string | undefined }> => {
    rmSync(join(state, 'settings-source'), { recursive: true, force: true });
    const agent = await startAgent({
      ini: `[/modules]\nWEBServer = enabled\n\n[/paths]\nstate = ${state}\n\n[/settings/default]\npassword = ${PASSWORD}\nallowed hosts = 127.0.0.1\n\n[/settings/WEB/server]\nport = 0s\nbind to = 127.0.0.1\n\n[/settings/source]\n${source}\ntimeout = 5\n`,
    });
    const port = await webPort(agent);
    const get = (path: string): ReturnType<typeof webRequest> =>
      webRequest(`https://127.0.0.1:${port}${path}`, { user: 'root', password: PASSWORD, timeoutMs: 15_000 });
    let s: Source | undefined;
    await waitUntil(
      async () => {
        s = (await get('/api/v1/settings/status')).json<{ source: Source }>().source;
        return s.pulls.changed + s.pulls.failed > 0;
      },
      15_000,
      'the first pull',
    );
    const size = (await get('/api/v1/settings/settings/log'))
      .json<{ key: string; value: string }[]>()
      .find((e) => e.key === 'buffer size')?.value;
    return { s: s as Source, agent, size };
  };

  void it('verifies the server against ca', async () => {
    const { s, agent, size } = await run(`url = ${nginx.httpsBase}/agent.ini\nca = ${ca}`);
    await agent.stop();
    assert.equal(s.lastError, null);
    assert.equal(size, '4321');
  });

  void it('without ca, a server signed by a private CA is refused and the local settings stay', async () => {
    const { s, agent, size } = await run(`url = ${nginx.httpsBase}/agent.ini`);
    await agent.stop();
    assert.match(
      s.lastError ?? '',
      /AGENT_ERR_SOURCE_PULL|pulling the settings from .* failed: .*(certificate|issuer)/,
    );
    assert.equal(size, '5000');
  });

  void it('insecure = true pulls, and is warned about', async () => {
    const { s, agent, size } = await run(`url = ${nginx.httpsBase}/agent.ini\ninsecure = true`);
    const warned = agent.logs();
    await agent.stop();
    assert.equal(s.lastError, null);
    assert.equal(size, '4321');
    assert.match(warned, /AGENT_WARN_SOURCE_INSECURE.*insecure = true/);
  });

  void it('a plain http:// URL is warned about', async () => {
    const { s, agent } = await run(`url = ${nginx.base}/agent.ini`);
    const warned = agent.logs();
    await agent.stop();
    assert.equal(s.lastError, null);
    assert.match(warned, /AGENT_WARN_SOURCE_INSECURE.*plain http/);
  });

  void it('a redirect from https to http is refused', async () => {
    const { s, agent } = await run(`url = ${nginx.httpsBase}/down.ini\nca = ${ca}`);
    await agent.stop();
    assert.match(s.lastError ?? '', /redirected from https to http/);
  });
});
