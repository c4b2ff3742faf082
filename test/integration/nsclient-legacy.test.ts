/**
 * Black box, as NSClient++ users poll: the agent runs as a process with
 * WEBServer on HTTPS, and Debian's check_nscp_api (package icinga2-bin)
 * queries it with the `password` header on `/query/<command>`: OK, WARNING
 * and CRITICAL scripts with performance data, arguments (with `=` and
 * spaces), and a wrong password. Then the other legacy routes with a plain
 * HTTPS client: the JSON shape, `/query.pb` with protobuf bytes, the open
 * `/core/isalive`, `/core/reload`, the log routes, `admin` as root, and the
 * `password` header under the failed-login limit and the 8 KiB cap.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { decode, encode, header } from '../../src/core/plugin/codec.js';
import { Plugin } from '../../src/core/plugin/generated/plugin.js';
import { replaceFile, type AgentProcess } from '../helpers/agent-process.js';
import {
  CHECK_NSCP_API,
  PERF_SCRIPT_ENTRIES,
  PERF_SCRIPTS,
  runPlugin,
  startWebAgent,
  waitUntil,
} from '../helpers/nscp-clients.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest, type WebRequestOptions } from '../helpers/web-client.js';
import { inRange } from '../../src/in-range.js';

const INI = `; NSClient++ clients test
[/modules]
WEBServer = enabled
CheckHelpers = enabled
CheckExternalScripts = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = nscp-secret
auth rate limit max failures = 0

${PERF_SCRIPT_ENTRIES}`;

void describe('NSClient++ clients against the agent (agent process, Debian check_nscp_api)', () => {
  let agent: AgentProcess;
  let base: string;
  let port: string;
  let ca: string;

  const made = new Teardown();
  after(() => made.close());

  before(async () => {
    ({ agent, base, port, ca } = made.add(await startWebAgent({ ini: INI, files: PERF_SCRIPTS }), (w) =>
      w.agent.stop(),
    ));
  });

  const nscp = (query: string, args: string[] = [], password = 'nscp-secret') =>
    runPlugin(CHECK_NSCP_API, [
      '-H',
      '127.0.0.1',
      '-P',
      port,
      '--password',
      password,
      '-q',
      query,
      ...(args.length > 0 ? ['-a', ...args] : []),
    ]);
  const call = (path: string, opts: WebRequestOptions = {}) => webRequest(`${base}${path}`, { ca, ...opts });

  void it('check_nscp_api reads OK, WARNING and CRITICAL with their performance data', async () => {
    const ok = await nscp('perf_ok');
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.equal(ok.stdout, "perf_ok OK: all good | 'temp'=21.500000C;30;40;0;100 'count'=3;5;10 \n");
    const warn = await nscp('perf_warn');
    assert.equal(warn.code, 1, warn.stdout + warn.stderr);
    assert.equal(warn.stdout, "perf_warn WARNING: getting warm | 'temp'=35C;30;40;0;100 \n");
    const crit = await nscp('perf_crit');
    assert.equal(crit.code, 2, crit.stdout + crit.stderr);
    assert.equal(crit.stdout, "perf_crit CRITICAL: too hot | 'temp'=45.250000C;30;40;0;100 \n");
  });

  void it('check_nscp_api passes arguments, with = and spaces, in order', async () => {
    const negated = await nscp('check_negate', ['command=perf_crit', 'critical=ok']);
    assert.equal(negated.code, 0, negated.stdout + negated.stderr);
    assert.match(negated.stdout, /^check_negate CRITICAL: too hot \| 'temp'=45\.250000C;30;40;0;100 \n$/);
    const multi = await nscp('check_multi', ['command=perf_ok', 'command=perf_warn', 'separator= and then ']);
    assert.equal(multi.code, 1, multi.stdout + multi.stderr);
    assert.match(
      multi.stdout,
      /^check_multi OK: all good and then WARNING: getting warm \| 'temp'=21\.500000C.*'count'=3;5;10 'temp'=35C;30;40;0;100 \n$/,
    );
  });

  void it('check_nscp_api with a wrong password gets 403 and says so in its own words (UNKNOWN)', async () => {
    const bad = await nscp('perf_ok', [], 'not-the-password');
    assert.equal(bad.code, 3);
    assert.match(bad.stdout + bad.stderr, /UNKNOWN: Answer format error: Answer is missing 'payload'/);
    const res = await call('/query/perf_ok', { headers: { password: 'not-the-password' } });
    assert.equal(res.status, 403);
    assert.equal(res.json<{ code: string }>().code, 'AGENT_ERR_HTTP_FORBIDDEN');
  });

  void it('answers /query/<command> in NSClient++ JSON (float_value perf, unknown command as UNKNOWN)', async () => {
    const res = await call('/query/perf_ok/', { headers: { password: 'nscp-secret' } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json(), {
      payload: [
        {
          command: 'perf_ok',
          result: 'OK',
          lines: [
            {
              message: 'OK: all good',
              perf: [
                {
                  alias: 'temp',
                  float_value: { value: 21.5, unit: 'C', warning: 30, critical: 40, minimum: 0, maximum: 100 },
                },
                { alias: 'count', float_value: { value: 3, warning: 5, critical: 10 } },
              ],
            },
          ],
        },
      ],
    });
    const unknown = await call('/query/no_such_check', { user: 'root', password: 'nscp-secret' });
    assert.equal(unknown.status, 200);
    assert.deepEqual(unknown.json(), {
      payload: [
        {
          command: 'no_such_check',
          result: 'UNKNOWN',
          lines: [{ message: 'Unknown command(s): no_such_check', perf: [] }],
        },
      ],
    });
  });

  void it('runs a serialized QueryRequestMessage on POST /query.pb and answers the QueryResponseMessage', async () => {
    const request = encode('QueryRequestMessage', {
      header: header(Plugin.Header.Type.QUERY_REQUEST),
      payload: [
        { id: 7, command: 'perf_warn', arguments: [] },
        { id: 8, command: 'check_ok', arguments: ['fine'] },
      ],
    });
    const res = await rawPost(`${base}/query.pb`, Buffer.from(request), ca, { password: 'nscp-secret' });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/x-protobuf');
    const answer = decode('QueryResponseMessage', res.body);
    assert.deepEqual(
      answer.payload.map((p) => [p.id, p.command, p.result, p.message]),
      [
        [7, 'perf_warn', 1, 'WARNING: getting warm'],
        [8, 'check_ok', 0, 'fine'],
      ],
    );
    assert.equal(answer.payload[0]?.perf?.[0]?.alias, 'temp');
    const garbage = await rawPost(`${base}/query.pb`, Buffer.from([0xff, 0xff, 0xff]), ca, { password: 'nscp-secret' });
    assert.equal(garbage.status, 400);
    assert.match(garbage.body.toString('utf8'), /AGENT_ERR_HTTP_BAD_REQUEST/);
  });

  void it('answers /core/isalive without credentials (to allowed hosts only), and reloads on POST /core/reload', async () => {
    assert.equal((await call('/core/isalive', { localAddress: '127.0.0.2' })).status, 403);
    const alive = await call('/core/isalive');
    assert.equal(alive.status, 200);
    assert.deepEqual(alive.json(), { status: 'ok' });
    assert.equal((await call('/core/reload', { method: 'POST' })).status, 403);
    const reload = await call('/core/reload', { method: 'POST', headers: { password: 'nscp-secret' } });
    assert.equal(reload.status, 200);
    assert.deepEqual(reload.json(), { status: 'reload', result: 'ok' });
  });

  void it('serves the log: /log/status, /log/messages?pos=N and POST /log/reset', async () => {
    const auth = { headers: { password: 'nscp-secret' } };
    const first = await call('/log/messages', auth);
    assert.equal(first.status, 200);
    const log = first.json<{
      log: { data: { file: string; line: number; type: string; date: string; message: string }[]; pos: number };
    }>().log;
    assert.ok(log.data.length > 0 && log.pos > 0);
    assert.ok(log.data.some((e) => /web server listening/.test(e.message)));
    assert.deepEqual(Object.keys(inRange(log.data, 0)).sort(), ['date', 'file', 'line', 'message', 'type']);
    // Nothing new after pos but what this very poll caused.
    const next = (await call(`/log/messages?pos=${log.pos}`, auth)).json<{
      log: { data: { message: string }[]; pos: number };
    }>().log;
    assert.ok(next.pos >= log.pos);
    assert.ok(next.data.every((e) => !/web server listening/.test(e.message)));
    assert.equal((await call('/log/messages?pos=-1', auth)).status, 400);
    const status = await call('/log/status', auth);
    assert.equal(status.status, 200);
    const s = status.json<{ status: { count: number; error: string } }>().status;
    assert.equal(typeof s.count, 'number');
    assert.equal(typeof s.error, 'string');
    const reset = await call('/log/reset', { method: 'POST', ...auth });
    assert.deepEqual(reset.json(), { status: 'ok' });
    assert.deepEqual((await call('/log/status', auth)).json(), { status: { count: 0, error: '' } });
    const after = (await call('/log/messages', auth)).json<{ log: { data: { message: string }[] } }>().log;
    assert.ok(
      after.data.every((e) => !/web server listening/.test(e.message)),
      'the reset emptied the log',
    );
  });

  void it('takes Basic admin with the root password as root until the file defines a user admin', async () => {
    assert.equal((await call('/api/v1/info', { user: 'admin', password: 'nscp-secret' })).status, 200);
    assert.equal((await call('/query/check_ok', { user: 'admin', password: 'nscp-secret' })).status, 200);
    const text = readFileSync(agent.settingsFile, 'utf8');
    replaceFile(agent.settingsFile, `${text}\n[/settings/web/users/admin]\npassword = admin-own\nrole = client\n`);
    await waitUntil(
      async () => (await call('/api/v1/info', { user: 'admin', password: 'nscp-secret' })).status === 403,
    );
    assert.equal((await call('/api/v1/info', { user: 'admin', password: 'admin-own' })).status, 200);
    // The seeded NSClient++ role client has no legacy grant; the password header is root's all the same.
    assert.equal((await call('/query/check_ok', { user: 'admin', password: 'admin-own' })).status, 403);
    assert.equal((await call('/query/check_ok', { headers: { password: 'nscp-secret' } })).status, 200);
    replaceFile(agent.settingsFile, text);
    await waitUntil(
      async () => (await call('/api/v1/info', { user: 'admin', password: 'nscp-secret' })).status === 200,
    );
  });
});

void describe('the password header under the failed-login limit and the 8 KiB cap (agent process)', () => {
  let agent: AgentProcess;
  let base: string;
  let ca: string;

  const made = new Teardown();
  after(() => made.close());

  before(async () => {
    ({ agent, base, ca } = made.add(
      await startWebAgent({
        ini: INI.replace('auth rate limit max failures = 0', 'auth rate limit max failures = 3'),
      }),
      (w) => w.agent.stop(),
    ));
  });

  void it('refuses a header over 8 KiB, counts it and wrong passwords as failures, then blocks the right one', async () => {
    const call = (password: string) => webRequest(`${base}/query/check_ok`, { ca, headers: { password } });
    assert.equal((await call('x'.repeat(8193))).status, 403);
    assert.equal((await call('wrong-1')).status, 403);
    assert.equal((await call('nscp-secret')).status, 200, 'two failures do not block yet');
    assert.equal((await call('wrong-2')).status, 403);
    assert.equal((await call('nscp-secret')).status, 403, 'blocked after three failures');
    assert.match(agent.logs(), /AGENT_WARN_WEB_AUTH_BLOCKED|refused for 60 s after 3 failed/);
  });
});

/** POST raw bytes over HTTPS and read the raw answer. */
async function rawPost(
  url: string,
  body: Buffer,
  ca: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        ca,
        headers: { ...headers, 'content-type': 'application/octet-stream', 'content-length': String(body.length) },
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}
