/**
 * check_tcp against real loopback listeners started here: connect, send and
 * expect, refused ports, read timeouts, IPv6, names from /etc/hosts, and the
 * per-check concurrency limit seen from the server side.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { runCheck } from '../../../../src/checks/engine.js';
import { toNagios } from '../../../../src/core/result.js';
import { NetLimits } from '../../../../src/checks/net/net-context.js';
import { tcpCheck } from '../../../../src/checks/net/tcp-check.js';
import { httpsPeer, silentTcpPeer, tcpPeer, type Peer } from '../../../helpers/net-peers.js';

const check = tcpCheck(new NetLimits({ maxConcurrent: 8 }));
let peer: Peer;
let peer6: Peer;
let silent: Peer;

before(async () => {
  peer = await tcpPeer();
  peer6 = await tcpPeer('HELLO v6', '::1');
  silent = await silentTcpPeer();
});
after(async () => {
  await Promise.all([peer.close(), peer6.close(), silent.close()]);
});

/** A port that was just free: a listener opened and closed again. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

void test('connects to a listening port: OK with the time in ms as perf data and NSClient++ thresholds', async () => {
  const r = await runCheck(check, ['host=127.0.0.1', `port=${peer.port}`]);
  assert.equal(r.result, 0, r.message);
  assert.match(r.message, new RegExp(`^OK: 127\\.0\\.0\\.1:${peer.port} connected in [\\d.]+ms$`));
  assert.equal(r.perf.length, 1);
  assert.equal(r.perf[0]?.alias, `127.0.0.1:${peer.port} time`);
  assert.equal(r.perf[0].unit, 'ms');
  assert.equal(r.perf[0].warning, 1000);
  assert.equal(r.perf[0].critical, 5000);
});

void test('a refused port is CRITICAL with result refused', async () => {
  const port = await closedPort();
  const r = await runCheck(check, [
    'host=127.0.0.1',
    `port=${port}`,
    'show-all',
    'detail-syntax=${host}:${port} ${result}',
  ]);
  assert.equal(r.result, 2);
  assert.equal(r.message, `CRITICAL: 127.0.0.1:${port} refused`);
});

void test('send and expect: the reply must match the regular expression', async () => {
  const ok = await runCheck(check, [
    'host=127.0.0.1',
    `port=${peer.port}`,
    'send=PING\\r\\n',
    'expect=echo: PING',
    'detail-syntax=${message} / ${response}',
  ]);
  assert.equal(ok.result, 0, ok.message);
  assert.equal(ok.message, 'OK: reply matches echo: PING / HELLO test-peer');
  const banner = await runCheck(check, [
    'host=127.0.0.1',
    `port=${peer.port}`,
    'expect=^HELLO',
    'detail-syntax=${result}',
  ]);
  assert.equal(banner.message, 'OK: ok');
  const bad = await runCheck(check, [
    'host=127.0.0.1',
    `port=${peer.port}`,
    'expect=^SSH-',
    'timeout=2000',
    'detail-syntax=${result}',
  ]);
  assert.equal(bad.result, 2, bad.message);
  assert.match(bad.message, /^CRITICAL: (mismatch|timeout)$/);
});

void test('a peer that never answers times out at timeout= and names the step', async () => {
  const r = await runCheck(check, ['host=127.0.0.1', `port=${silent.port}`, 'expect=anything', 'timeout=300']);
  assert.equal(r.result, 2);
  assert.match(
    r.message,
    new RegExp(
      `^CRITICAL: 127\\.0\\.0\\.1:${silent.port} timed out after 300 ms while reading the reply in [\\d.]+ms$`,
    ),
  );
});

void test('IPv6 loopback and a name from /etc/hosts', async () => {
  const v6 = await runCheck(check, ['host=::1', `port=${peer6.port}`, 'expect=HELLO v6']);
  assert.equal(v6.result, 0, v6.message);
  const named = await runCheck(check, ['host=localhost', `port=${peer.port}`, 'ipv4', 'detail-syntax=${address}']);
  assert.equal(named.message, 'OK: 127.0.0.1');
});

void test('several hosts are items; warn/crit/filter work on them', async () => {
  const port = await closedPort();
  const r = await runCheck(check, [
    `host=127.0.0.1,localhost`,
    `port=${peer.port}`,
    'warn=time >= 0',
    'crit=none',
    'detail-syntax=${host}',
  ]);
  assert.equal(r.result, 1);
  assert.equal(r.message, 'WARNING: 127.0.0.1, localhost');
  const filtered = await runCheck(check, ['host=127.0.0.1', `port=${port}`, "filter=result = 'ok'", 'empty-state=ok']);
  assert.equal(filtered.result, 0);
  assert.equal(filtered.message, 'OK: No hosts to check');
});

void test('bad arguments answer UNKNOWN with what is wrong; help lists options and names', async () => {
  assert.deepEqual(await runCheck(check, ['host=127.0.0.1']), {
    command: 'check_tcp',
    result: 3,
    message: 'port= is required (1-65535)',
    perf: [],
  });
  assert.equal((await runCheck(check, [`port=${peer.port}`])).message, 'host= is required');
  assert.match((await runCheck(check, ['host=-oProxy', 'port=1'])).message, /not a host name/);
  assert.match(
    (await runCheck(check, ['host=127.0.0.1', 'port=1', 'expect=('])).message,
    /^expect=\( is not a regular expression/,
  );
  assert.match(
    (await runCheck(check, ['host=127.0.0.1', 'port=1', 'timeout=0'])).message,
    /^timeout=0 is not a number at least 1/,
  );
  const help = await runCheck(check, ['help']);
  for (const word of [
    'host=',
    'port=',
    'timeout=',
    'send=',
    'expect=',
    'tls',
    'connect_time (ms)',
    'result (string)',
    "critical=time > 5000 or result != 'ok'",
  ])
    assert.ok(help.message.includes(word), word);
});

void test('at most max concurrent probes of one check are in flight at once', async () => {
  // held: connections the server has accepted and not yet ended. A probe
  // frees its slot only after the server's end reaches it, so with a limit
  // of 2 no third connection can arrive while two are held.
  let held = 0;
  let peak = 0;
  let accepted = 0;
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    accepted++;
    held++;
    peak = Math.max(peak, held);
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
    setTimeout(() => {
      held--;
      s.end();
    }, 100);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  try {
    const limited = tcpCheck(new NetLimits({ maxConcurrent: 2 }));
    const hosts = Array.from({ length: 6 }, () => 'host=127.0.0.1');
    const r = await runCheck(limited, [
      ...hosts,
      `port=${port}`,
      'expect=never',
      'timeout=10000',
      'show-all',
      'detail-syntax=${result}',
    ]);
    assert.equal(r.result, 2);
    assert.equal(r.message, `CRITICAL: ${Array(6).fill('mismatch').join(', ')}`);
    assert.equal(accepted, 6);
    assert.equal(peak, 2);
    // The same six probes without the limit are all held at once.
    peak = 0;
    await runCheck(tcpCheck(new NetLimits({ maxConcurrent: 100 })), [
      ...hosts,
      `port=${port}`,
      'expect=never',
      'timeout=10000',
    ]);
    assert.equal(peak, 6);
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

void test('the Nagios text has ms units', async () => {
  const r = await runCheck(check, ['host=127.0.0.1', `port=${peer.port}`, 'perf-config=time(unit:s)']);
  assert.match(toNagios(r), /\|'127\.0\.0\.1:\d+ time'=[\d.]+s;1;5;0$/);
});

void test('tls: the handshake is part of connecting; an untrusted certificate is result tls unless insecure', async () => {
  const tls = await httpsPeer(new Date(Date.now() - 86_400_000), new Date(Date.now() + 30 * 86_400_000));
  try {
    const ok = await runCheck(check, [
      'host=127.0.0.1',
      `port=${tls.port}`,
      'tls',
      'insecure',
      'send=GET / HTTP/1.0\\r\\n\\r\\n',
      'expect=^HTTP/1\\.1 200',
      'detail-syntax=${result}',
    ]);
    assert.equal(ok.message, 'OK: ok');
    const strict = await runCheck(check, [
      'host=127.0.0.1',
      `port=${tls.port}`,
      'tls',
      'detail-syntax=${result}: ${message}',
    ]);
    assert.equal(strict.result, 2);
    assert.match(strict.message, /^CRITICAL: tls: TLS: self[- ]signed certificate/);
  } finally {
    await tls.close();
  }
});
