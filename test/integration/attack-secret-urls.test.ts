/**
 * Black box (issue 37, item 5): secrets written into the URL of the
 * settings source and of a remote include, as userinfo (`user:password@`)
 * or read with `${env:…}`. A user of the shipped `viewer` role reads the
 * settings status, the metrics and the log; an admin runs `config-agent settings
 * show`; a pull fails and its error is answered. None of them may show a
 * secret: every exit shows the URL in its masked form.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { freePort, type AgentProcess } from '../helpers/agent-process.js';
import { startWebAgent } from '../helpers/nscp-clients.js';
import { runAgentCli } from '../helpers/run-cli.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest } from '../helpers/web-client.js';
import { waitUntil } from '../helpers/wait-until.js';

const LITERAL = 'literal-pw-3141';
const ENV_SECRET = 'env-token-2718';
const INCLUDE_SECRET = 'include-pw-1618';
const VIEWER =
  'public, info.get, modules.list, modules.get, queries.list, queries.get, logs.list, settings.get, metrics.list';

void describe('secrets in source and include URLs stay masked at every exit (agent process)', () => {
  let agent: AgentProcess;
  let base: string;
  let ca: string;
  const made = new Teardown();

  before(async () => {
    // The agent and `config-agent settings show` read the include's token from their environment.
    process.env.INCLUDE_TOKEN = ENV_SECRET;
    // Nothing listens there: every pull fails at once.
    const port = await freePort();
    ({ agent, base, ca } = made.add(
      await startWebAgent({
        ini: `[/modules]
WEBServer = enabled

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = root-pw
allowed hosts = 127.0.0.1

[/settings/web/roles]
viewer = ${VIEWER}

[/settings/web/users/val]
password = val-pw
role = viewer

[/includes]
shared = https://incuser:${INCLUDE_SECRET}@127.0.0.1:${port}/\${env:INCLUDE_TOKEN}/shared.ini

[/settings/source]
url = https://fleet:${LITERAL}@127.0.0.1:${port}/hosts/web01.ini
interval = 3600
timeout = 2
`,
      }),
      (w) => w.agent.stop(),
    ));
  });
  after(() => made.close());

  const asViewer = (path: string, method = 'GET'): ReturnType<typeof webRequest> =>
    webRequest(`${base}${path}`, { ca, method, user: 'val', password: 'val-pw' });

  const assertMasked = (what: string, text: string): void => {
    for (const secret of [LITERAL, ENV_SECRET, INCLUDE_SECRET])
      assert.ok(!text.includes(secret), `${what} shows the secret ${secret}:\n${text.slice(0, 3000)}`);
  };

  void it('the settings status shows the source and the include masked, after a failed pull too', async () => {
    await waitUntil(
      async () => (await asViewer('/api/v1/settings/status')).body.includes('"lastPull":"'),
      20_000,
      'the first pull attempt',
    );
    const res = await asViewer('/api/v1/settings/status');
    assert.equal(res.status, 200);
    assert.match(res.body, /"url":"https:\/\/\*{6}@127\.0\.0\.1:\d+\/hosts\/web01\.ini"/, 'the source, its host kept');
    assertMasked('GET /api/v1/settings/status', res.body);
  });

  void it('the metrics label of the source is masked', async () => {
    const res = await asViewer('/api/v1/metrics');
    assert.equal(res.status, 200);
    assert.match(res.body, /agent_settings_source_info\{url="https:\/\/\*{6}@127\.0\.0\.1:\d+\/hosts\/web01\.ini"/);
    assertMasked('GET /api/v1/metrics', res.body);
  });

  void it('the log, as the API serves it and as the agent prints it, is masked', async () => {
    const res = await asViewer('/api/v1/logs?per_page=500');
    assert.equal(res.status, 200);
    assert.match(res.body, /settings source|remote include/, 'the log speaks of the pulls');
    assertMasked('GET /api/v1/logs', res.body);
    assertMasked("the agent's own output", agent.logs());
  });

  void it('the answer of a failed pull is masked', async () => {
    const res = await webRequest(`${base}/api/v1/settings/pull`, {
      ca,
      method: 'POST',
      user: 'root',
      password: 'root-pw',
    });
    assert.equal(res.status, 200);
    assert.match(res.body, /"status":"failed"/);
    assertMasked('POST /api/v1/settings/pull', res.body);
  });

  void it('config-agent settings show masks the URLs', async () => {
    const r = await runAgentCli(['settings', 'show', '--settings', agent.settingsFile]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /source https:\/\/\*{6}@127\.0\.0\.1/);
    assertMasked('config-agent settings show', r.stdout + r.stderr);
  });
});
