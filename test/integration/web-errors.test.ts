/**
 * Black box: the error answers of the web API (agent process, HTTPS):
 * 400 for a body that is not JSON (text, naming the problem, correct
 * Content-Length), 422 listing each invalid field, 413 past `max body size`,
 * 404 for unknown routes and resources, unknown body fields ignored, bad
 * paging parameters 400, and the Nagios text form of a query.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest, type WebRequestOptions } from '../helpers/web-client.js';
import { inRange } from '../../src/in-range.js';

const INI = `[/modules]
WEBServer = enabled
CheckHelpers = enabled

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = pw
max body size = 1024
`;

void describe('web API errors (agent process)', () => {
  let agent: AgentProcess;
  let base: string;
  let ca: string;
  const root = (path: string, opts: WebRequestOptions = {}) =>
    webRequest(`${base}${path}`, { ca, user: 'root', password: 'pw', ...opts });

  const made = new Teardown();
  after(() => made.close());

  before(async () => {
    agent = made.add(await startAgent({ ini: INI }), (a) => a.stop());
    base = inRange(await agent.waitForLog(/web server listening on (https:\/\/127\.0\.0\.1:\d+)/), 1);
    ca = readFileSync(join(agent.dir, 'security', 'certificate.pem'), 'utf8');
  });

  void it('answers 400 with a short text naming the JSON problem and a correct Content-Length', async () => {
    const res = await root('/api/v1/modules', {
      method: 'PUT',
      body: '{"name": "CheckHelpers", loaded: true}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 400);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    assert.match(res.body, /^invalid JSON body: .*JSON at position \d+/);
    assert.equal(Number(res.headers['content-length']), Buffer.byteLength(res.body));
  });

  void it('answers 422 listing every invalid field', async () => {
    const res = await root('/api/v1/modules', {
      method: 'PUT',
      body: '{"name": 7, "loaded": "yes"}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 422);
    const body = res.json<{ status: string; code: string; fields: { field: string; message: string }[] }>();
    assert.equal(body.status, 'error');
    assert.equal(body.code, 'AGENT_ERR_HTTP_UNPROCESSABLE');
    assert.deepEqual(body.fields.map((f) => f.field).sort(), ['loaded', 'name']);
    const missing = await root('/api/v1/modules/CheckHelpers', { method: 'PUT', body: '{}' });
    assert.equal(missing.status, 422);
    assert.deepEqual(missing.json<{ fields: unknown }>().fields, [{ field: 'loaded', message: 'is required' }]);
  });

  void it('answers 413 past max body size', async () => {
    const res = await root('/api/v1/modules', {
      method: 'PUT',
      body: JSON.stringify({ name: 'CheckHelpers', loaded: true, pad: 'x'.repeat(2000) }),
    });
    assert.equal(res.status, 413);
    assert.equal(res.json<{ code: string }>().code, 'AGENT_ERR_HTTP_BODY_TOO_LARGE');
  });

  void it('ignores unknown fields in a body', async () => {
    const res = await root('/api/v1/modules', {
      method: 'PUT',
      body: JSON.stringify({ name: 'CheckHelpers', loaded: true, colour: 'blue' }),
    });
    assert.equal(res.status, 200);
    const m = res.json<{ name: string; loaded: boolean; module_url: string }>();
    assert.equal(m.name, 'CheckHelpers');
    assert.equal(m.loaded, true);
    assert.equal(m.module_url, `${base}/api/v1/modules/CheckHelpers`);
  });

  void it('answers 404 for unknown routes and resources, after authentication', async () => {
    for (const path of [
      '/api/v3',
      '/api/v1/nothing',
      '/api/v1/modules/NoSuchModule',
      '/api/v1/queries/no_such_query',
      '/api/v1/modules/CheckHelpers/commands/explode',
      '/no-such-file.js',
    ]) {
      const res = await root(path);
      assert.equal(res.status, 404, path);
      assert.equal(res.json<{ code: string }>().code, 'AGENT_ERR_HTTP_NOT_FOUND', path);
    }
    const anonymous = await webRequest(`${base}/api/v1/nothing`, { ca });
    assert.equal(anonymous.status, 403, 'unknown API paths do not answer before authentication');
  });

  void it('answers 400 for bad paging parameters', async () => {
    for (const q of ['page=0', 'per_page=501', 'per_page=x', 'level=loud', 'page=1&page=2']) {
      const res = await root(`/api/v1/logs?${q}`);
      assert.equal(res.status, 400, q);
      assert.equal(res.json<{ code: string }>().code, 'AGENT_ERR_HTTP_BAD_REQUEST', q);
    }
  });

  void it('executes a query with query-string arguments as JSON and as Nagios text', async () => {
    const json = await root('/api/v1/queries/check_critical/commands/execute?message=disk%20full');
    assert.equal(json.status, 200);
    const body = json.json<{ command: string; result: number; lines: { message: string; perf: object }[] }>();
    assert.equal(body.command, 'check_critical');
    assert.equal(body.result, 2);
    assert.equal(body.lines.length, 1);
    const text = await root('/api/v1/queries/check_critical/commands/execute?message=disk%20full', {
      headers: { accept: 'text/plain' },
    });
    assert.equal(text.status, 200, 'a CRITICAL check is an answer, not a server error');
    assert.match(String(text.headers['content-type']), /^text\/plain/);
    assert.equal(text.headers['x-check-result'], 'CRITICAL');
    assert.match(text.body, /\n$/);
    const unknown = await root('/api/v1/queries/nope/commands/execute');
    assert.equal(unknown.status, 200);
    assert.deepEqual(unknown.json(), {
      command: 'nope',
      result: 3,
      lines: [{ message: 'Unknown command(s): nope', perf: {} }],
    });
  });
});
