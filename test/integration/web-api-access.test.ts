/**
 * Black box: the agent runs as a process with WEBServer on HTTPS (its own
 * self-signed certificate, verified as the CA). For every route of the
 * DESIGN.md table: no credentials, a wrong password, an unknown user, a
 * Bearer header, a disallowed address (127.0.0.2 vs allowed hosts
 * 127.0.0.1), a user whose role lacks the privilege, a user with wildcard
 * privileges, and root, each with the expected status.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest, type WebRequestOptions } from '../helpers/web-client.js';
import { inRange } from '../../src/in-range.js';

const INI = `; web API access test
[/modules]
WEBServer = enabled
CheckHelpers = enabled

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = root-secret
allowed hosts = 127.0.0.1
; failures are part of this test: no blocking here (web-live tests the limiter)
auth rate limit max failures = 0

[/settings/web/roles]
wild = public, info.*, modules.*, queries.*, scripts.*, logs.*, settings.*, metrics.*
none = nothing.at.all

[/settings/web/users/wilma]
password = wilma-pw
role = wild

[/settings/web/users/norm]
password = norm-pw
role = none
`;

interface Case {
  method: string;
  path: string;
  body?: string;
  /** Status for root and for the wildcard user. */
  ok: number;
}

// Order matters for module state: disable before enable, unload before load.
const CASES: Case[] = [
  { method: 'GET', path: '/api', ok: 200 },
  { method: 'GET', path: '/api/v1', ok: 200 },
  { method: 'GET', path: '/api/v1/info', ok: 200 },
  { method: 'GET', path: '/api/v1/info/version', ok: 200 },
  { method: 'GET', path: '/api/v1/modules', ok: 200 },
  { method: 'GET', path: '/api/v1/modules/CheckHelpers', ok: 200 },
  { method: 'GET', path: '/api/v1/modules/CheckHelpers/commands/disable', ok: 200 },
  { method: 'GET', path: '/api/v1/modules/CheckHelpers/commands/enable', ok: 200 },
  { method: 'GET', path: '/api/v1/modules/CheckHelpers/commands/unload', ok: 200 },
  { method: 'GET', path: '/api/v1/modules/CheckHelpers/commands/load', ok: 200 },
  { method: 'PUT', path: '/api/v1/modules', body: '{"name":"CheckHelpers","loaded":true}', ok: 200 },
  { method: 'PUT', path: '/api/v1/modules/CheckHelpers', body: '{"loaded":true}', ok: 200 },
  { method: 'GET', path: '/api/v1/queries', ok: 200 },
  { method: 'GET', path: '/api/v1/queries/check_ok', ok: 200 },
  { method: 'GET', path: '/api/v1/queries/check_ok/commands/execute?message=fine', ok: 200 },
  { method: 'GET', path: '/api/v1/scripts', ok: 200 },
  // CheckExternalScripts is not loaded: the runtime does not exist (after authorisation).
  { method: 'GET', path: '/api/v1/scripts/ext?all=true', ok: 404 },
  { method: 'GET', path: '/api/v1/scripts/ext/a.sh', ok: 404 },
  { method: 'PUT', path: '/api/v1/scripts/ext/a.sh', body: 'echo hi', ok: 404 },
  { method: 'DELETE', path: '/api/v1/scripts/ext/a.sh', ok: 404 },
  { method: 'GET', path: '/api/v1/logs', ok: 200 },
  { method: 'GET', path: '/api/v1/settings/status', ok: 200 },
  { method: 'GET', path: '/api/v1/metrics', ok: 200 },
];

void describe('web API access over HTTPS (agent process)', () => {
  let agent: AgentProcess;
  let base: string;
  let ca: string;
  const made = new Teardown();
  after(() => made.close());

  before(async () => {
    agent = made.add(await startAgent({ ini: INI }), (a) => a.stop());
    const m = await agent.waitForLog(/web server listening on (https:\/\/127\.0\.0\.1:\d+)/);
    base = inRange(m, 1);
    ca = readFileSync(join(agent.dir, 'security', 'certificate.pem'), 'utf8');
  });

  const call = (c: Case, opts: WebRequestOptions) =>
    webRequest(`${base}${c.path}`, {
      method: c.method,
      ca,
      ...(c.body !== undefined
        ? { body: c.body, headers: { 'content-type': 'application/json', ...opts.headers } }
        : {}),
      ...opts,
    });

  const refusals: [string, WebRequestOptions][] = [
    ['no credentials', {}],
    ['a wrong password', { user: 'root', password: 'not-it' }],
    ['an unknown user', { user: 'mallory', password: 'root-secret' }],
    ['a Bearer token', { headers: { authorization: 'Bearer root-secret' } }],
    ['a disallowed address', { user: 'root', password: 'root-secret', localAddress: '127.0.0.2' }],
    ['a user without the privilege', { user: 'norm', password: 'norm-pw' }],
  ];

  for (const [what, opts] of refusals) {
    void it(`answers 403 with the same body for ${what} on every route`, async () => {
      let body: string | undefined;
      for (const c of CASES) {
        const res = await call(c, opts);
        assert.equal(res.status, 403, `${c.method} ${c.path} with ${what}`);
        body ??= res.body;
        assert.equal(res.body, body, 'every 403 has the same body');
      }
      assert.deepEqual(JSON.parse(body as string), {
        status: 'error',
        code: 'AGENT_ERR_HTTP_FORBIDDEN',
        error: '403 You are not allowed',
      });
    });
  }

  for (const [who, user, password] of [
    ['root', 'root', 'root-secret'],
    ['a user with wildcard privileges', 'wilma', 'wilma-pw'],
  ] as const) {
    void it(`lets ${who} reach every route`, async () => {
      for (const c of CASES) {
        const res = await call(c, { user, password });
        assert.equal(res.status, c.ok, `${c.method} ${c.path} as ${user}: ${res.body}`);
      }
    });
  }

  void it('serves the static UI without credentials, but not to a disallowed address (nor /core/isalive)', async () => {
    const res = await webRequest(`${base}/`, { ca });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(res.body, /<html/i);
    for (const path of ['/', '/index.html', '/core/isalive']) {
      const refused = await webRequest(`${base}${path}`, { ca, localAddress: '127.0.0.2' });
      assert.equal(refused.status, 403, path);
    }
  });

  void it('counts the refusals and requests in the metrics', async () => {
    const res = await webRequest(`${base}/api/v1/metrics`, { ca, user: 'root', password: 'root-secret' });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.match(res.body, /agent_web_auth_failures_total\{reason="host"\} \d+/);
    assert.match(res.body, /agent_web_auth_failures_total\{reason="credentials"\} \d+/);
    assert.match(res.body, /agent_web_requests_total\{method="GET",route="\/api\/v1\/info",status="403"\} \d+/);
    assert.match(res.body, /agent_settings_reloads_total\{result="ok"\} \d+/);
    assert.match(res.body, /agent_query_duration_seconds_count\{channel="web",query="check_ok"\} \d+/);
  });
});
