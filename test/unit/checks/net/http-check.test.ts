/**
 * check_http against real HTTP and HTTPS listeners on loopback: status
 * codes, body match, size limit, the Host header, timeouts, and the
 * certificate (verification, days to expiry, expired) of test certificates
 * made here with chosen validity windows.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCheck } from '../../../../src/checks/engine.js';
import { toNagios } from '../../../../src/core/result.js';
import { NetLimits } from '../../../../src/checks/net/net-context.js';
import { httpCheck } from '../../../../src/checks/net/http-check.js';
import { httpPeer, httpsPeer, type Peer } from '../../../helpers/net-peers.js';

const DAY = 86_400_000;
const check = httpCheck(new NetLimits({ maxConcurrent: 8 }));
let http: Peer;
let https60: Peer;
let https10: Peer;
let httpsExpired: Peer;

before(async () => {
  const now = Date.now();
  http = await httpPeer();
  // Validity ends at noon-ish offsets so that whole days left are not on a boundary.
  https60 = await httpsPeer(new Date(now - DAY), new Date(now + 60.5 * DAY));
  https10 = await httpsPeer(new Date(now - DAY), new Date(now + 10.5 * DAY));
  httpsExpired = await httpsPeer(new Date(now - 30 * DAY), new Date(now - 1.5 * DAY));
});
after(async () => {
  await Promise.all([http.close(), https60.close(), https10.close(), httpsExpired.close()]);
});

const url = (p: Peer, path = '/', scheme = 'http'): string => `url=${scheme}://127.0.0.1:${p.port}${path}`;

void test('200 with a body match is OK; perf has time in ms and size in bytes', async () => {
  const r = await runCheck(check, [url(http), 'match=hello from']);
  assert.equal(r.result, 0, r.message);
  assert.match(
    r.message,
    new RegExp(`^OK: http://127\\.0\\.0\\.1:${http.port}/: HTTP 200 OK, 24 bytes, body matches in [\\d.]+ms$`),
  );
  assert.match(
    toNagios(r),
    /'http:\/\/127\.0\.0\.1:\d+\/ time'=[\d.]+ms;5000;;0 'http:\/\/127\.0\.0\.1:\d+\/ size'=24B;;;0$/,
  );
});

void test('a body that does not match is CRITICAL (result mismatch); match-regex too', async () => {
  const r = await runCheck(check, [url(http), 'match=goodbye', 'detail-syntax=${result} ${code} ${body_match}']);
  assert.equal(r.result, 2);
  assert.equal(r.message, 'CRITICAL: mismatch 200 false');
  const re = await runCheck(check, [url(http), 'match-regex=^hello .* peer$', 'detail-syntax=${result}']);
  assert.equal(re.message, 'OK: ok');
});

void test('status codes: 4xx and 5xx are CRITICAL, 3xx OK (redirects not followed); code is a filter name', async () => {
  for (const [code, status] of [
    [404, 2],
    [500, 2],
    [301, 0],
    [204, 0],
  ] as const) {
    const r = await runCheck(check, [url(http, `/status/${code}`), 'detail-syntax=${code}']);
    assert.equal(r.result, status, `${code}: ${r.message}`);
    assert.match(r.message, new RegExp(`: ${code}$`));
  }
  const warnOn404 = await runCheck(check, [url(http, '/status/404'), 'crit=none', 'warn=code = 404']);
  assert.equal(warnOn404.result, 1);
});

void test('a name in the URL goes to the Host header; the body is read up to max-size', async () => {
  const host = await runCheck(check, [
    `url=http://localhost:${http.port}/host`,
    'match=host header: localhost:',
    'detail-syntax=${address} ${result}',
  ]);
  assert.equal(host.message, 'OK: 127.0.0.1 ok');
  const big = await runCheck(check, [url(http, '/big'), 'max-size=1000', 'detail-syntax=${size}']);
  assert.equal(big.result, 0, big.message);
  assert.equal(big.message, 'OK: 1000B');
});

void test('a server that never answers times out waiting for the response', async () => {
  const r = await runCheck(check, [url(http, '/slow'), 'timeout=300']);
  assert.equal(r.result, 2);
  assert.match(r.message, /timed out after 300 ms while waiting for the response in [\d.]+ms$/);
});

void test('https: an untrusted certificate is CRITICAL (result tls) unless insecure', async () => {
  const r = await runCheck(check, [url(https60, '/', 'https'), 'detail-syntax=${result}: ${message}']);
  assert.equal(r.result, 2);
  assert.match(r.message, /^CRITICAL: tls: TLS: self[- ]signed certificate/);
});

void test('https: days to certificate expiry, with the default thresholds 30 and 7 days', async () => {
  const ok = await runCheck(check, [
    url(https60, '/', 'https'),
    'insecure',
    'detail-syntax=${cert_days} ${cert_subject}',
  ]);
  assert.equal(ok.result, 0, ok.message);
  assert.equal(ok.message, 'OK: 60 localhost');
  assert.match(toNagios(ok), /'https:\/\/127\.0\.0\.1:\d+\/ cert_days'=60;30:;7:$/);
  const soon = await runCheck(check, [url(https10, '/', 'https'), 'insecure']);
  assert.equal(soon.result, 1, soon.message);
  assert.match(soon.message, /certificate expires in 10 days/);
  const expired = await runCheck(check, [url(httpsExpired, '/', 'https'), 'insecure']);
  assert.equal(expired.result, 2, expired.message);
  assert.match(expired.message, /certificate expired 2 days ago/);
  const custom = await runCheck(check, [url(https60, '/', 'https'), 'insecure', 'warn=cert_days < 90', 'crit=none']);
  assert.equal(custom.result, 1);
});

void test('bad arguments answer UNKNOWN', async () => {
  assert.equal((await runCheck(check, [])).message, 'url= is required (http://host[:port]/path or https://...)');
  assert.equal(
    (await runCheck(check, ['url=ftp://127.0.0.1/'])).message,
    'url=ftp://127.0.0.1/: only http:// and https:// are supported',
  );
  assert.equal((await runCheck(check, ['url=nope'])).message, 'url=nope is not a URL');
  assert.equal(
    (await runCheck(check, [url(http), 'method=BREW'])).message,
    'method=BREW is not one of GET, HEAD, POST, PUT, DELETE, OPTIONS',
  );
  assert.equal(
    (await runCheck(check, [url(http), 'header=bad header'])).message,
    "header=bad header is not 'Name: value'",
  );
  const help = await runCheck(check, ['help']);
  for (const word of [
    'url=',
    'match=',
    'match-regex=',
    'insecure',
    'cert_days (number)',
    'cert_expiry (date)',
    'warning=time > 5000 or cert_days < 30',
  ])
    assert.ok(help.message.includes(word), word);
});
