/**
 * check_ping with the real ping binary (iputils-ping, installed by .ci/run)
 * against 127.0.0.1 and ::1 only; a missing binary is UNKNOWN saying so;
 * the parser against outputs recorded from iputils and busybox.
 */
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { runCheck } from '../../../../src/checks/engine.js';
import { toNagios } from '../../../../src/core/result.js';
import { NetLimits } from '../../../../src/checks/net/net-context.js';
import { parsePing, pingCheck } from '../../../../src/checks/net/ping-check.js';

const check = pingCheck(new NetLimits({ maxConcurrent: 8 }));

void test('127.0.0.1 and ::1 answer: OK with time in ms and loss in % as perf data', async () => {
  const r = await runCheck(check, ['host=127.0.0.1', 'host=::1', 'count=2', 'timeout=1000']);
  assert.equal(r.result, 0, r.message);
  assert.match(
    r.message,
    /^OK: 127\.0\.0\.1: 2\/2 replies, loss 0%, rtt [\d.]+ms, ::1: 2\/2 replies, loss 0%, rtt [\d.]+ms$/,
  );
  assert.match(
    toNagios(r),
    /\|'127\.0\.0\.1 time'=[\d.]+ms;60;100;0 '127\.0\.0\.1 loss'=0%;5;10;0;100 '::1 time'=[\d.]+ms;60;100;0 '::1 loss'=0%;5;10;0;100$/,
  );
  const named = await runCheck(check, [
    'host=localhost',
    'ipv4',
    'detail-syntax=${address} ${sent} ${received} ${ttl}',
  ]);
  assert.equal(named.message, 'OK: 127.0.0.1 1 1 64');
});

void test('thresholds apply to time and loss', async () => {
  const r = await runCheck(check, ['host=127.0.0.1', 'warn=time >= 0', 'crit=none']);
  assert.equal(r.result, 1, r.message);
});

void test('no ping binary is UNKNOWN saying so', async () => {
  const r = await runCheck(pingCheck(new NetLimits({ maxConcurrent: 8 }), '/nonexistent/ping'), ['host=127.0.0.1']);
  assert.equal(r.result, 3);
  assert.equal(r.message, 'check_ping failed: no ping binary (/nonexistent/ping) on this host: install iputils-ping');
});

void test('a kernel that refuses ICMP to ping is UNKNOWN saying so (output recorded under setpriv -net_raw)', async () => {
  const fixture = fileURLToPath(new URL('../../../../../test/fixtures/ping/no-icmp.sh', import.meta.url));
  const r = await runCheck(pingCheck(new NetLimits({ maxConcurrent: 8 }), fixture), ['host=127.0.0.1']);
  assert.equal(r.result, 3);
  assert.match(
    r.message,
    /^check_ping failed: ICMP is not permitted here \(no CAP_NET_RAW, and net\.ipv4\.ping_group_range excludes us\): .*no-icmp\.sh says .*socket: Operation not permitted$/,
  );
});

void test('bad arguments answer UNKNOWN; help lists options and names', async () => {
  assert.equal((await runCheck(check, [])).message, 'host= is required');
  assert.match(
    (await runCheck(check, ['host=127.0.0.1', 'count=99'])).message,
    /^count=99 is not a number at least 1 and at most 20$/,
  );
  assert.match((await runCheck(check, ['host=-f'])).message, /not a host name/);
  const help = await runCheck(check, ['help']);
  for (const word of ['host=', 'count=', 'timeout=', 'loss (percent)', 'time (ms)', 'warning=time > 60 or loss > 5%'])
    assert.ok(help.message.includes(word), word);
});

void test('parses iputils and busybox summaries, with and without replies', () => {
  const iputils =
    'PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data.\n64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.307 ms\n\n--- 127.0.0.1 ping statistics ---\n2 packets transmitted, 2 received, 0% packet loss, time 1006ms\nrtt min/avg/max/mdev = 0.034/0.170/0.307/0.136 ms\n';
  assert.deepEqual(parsePing(iputils), { sent: 2, received: 2, loss: 0, min: 0.034, time: 0.17, max: 0.307, ttl: 64 });
  const lost =
    'PING 192.0.2.1 (192.0.2.1) 56(84) bytes of data.\n\n--- 192.0.2.1 ping statistics ---\n3 packets transmitted, 0 received, +1 errors, 100% packet loss, time 2003ms\n';
  assert.deepEqual(parsePing(lost), { sent: 3, received: 0, loss: 100 });
  const busybox =
    'PING 127.0.0.1 (127.0.0.1): 56 data bytes\n64 bytes from 127.0.0.1: seq=0 ttl=64 time=0.071 ms\n\n--- 127.0.0.1 ping statistics ---\n1 packets transmitted, 1 packets received, 0% packet loss\nround-trip min/avg/max = 0.071/0.071/0.071 ms\n';
  assert.deepEqual(parsePing(busybox), { sent: 1, received: 1, loss: 0, min: 0.071, time: 0.071, max: 0.071, ttl: 64 });
  assert.equal(parsePing('ping: socket: Operation not permitted\n'), undefined);
});
