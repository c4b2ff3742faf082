/**
 * check_ntp_offset against SNTP responders on 127.0.0.1 written in
 * test/helpers, whose clocks run a chosen offset ahead of or behind ours;
 * a kiss-o'-death, a silent peer and a closed port.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCheck } from '../../../../src/checks/engine.js';
import { toNagios } from '../../../../src/core/result.js';
import { NetLimits } from '../../../../src/checks/net/net-context.js';
import { ntpCheck, readNtpTime, writeNtpTime } from '../../../../src/checks/net/ntp-check.js';
import { dnsPeer, ntpPeer, type Peer } from '../../../helpers/net-peers.js';

const check = ntpCheck(new NetLimits({ maxConcurrent: 8 }));
let inSync: Peer;
let ahead: Peer;
let behind: Peer;
let kiss: Peer;
let silent: Peer;

before(async () => {
  inSync = await ntpPeer(0);
  ahead = await ntpPeer(500);
  behind = await ntpPeer(-70);
  kiss = await ntpPeer(0, 0);
  silent = await dnsPeer({}, { mode: 'silent' });
});
after(async () => {
  await Promise.all([inSync, ahead, behind, kiss, silent].map((p) => p.close()));
});

const at = (p: Peer): string[] => ['server=127.0.0.1', `port=${p.port}`];
const offsetOf = (message: string): number => Number(/offset (-?[\d.]+)ms/.exec(message)?.[1]);

void test('a server in step with us is OK with offset, stratum and delay as perf data', async () => {
  const r = await runCheck(check, at(inSync));
  assert.equal(r.result, 0, r.message);
  assert.match(r.message, /^OK: 127\.0\.0\.1: offset -?[\d.]+ms, stratum 2, delay [\d.]+ms$/);
  assert.ok(Math.abs(offsetOf(r.message)) < 50, r.message);
  assert.match(
    toNagios(r),
    /\|'127\.0\.0\.1 offset'=-?[\d.]+ms;50;100 '127\.0\.0\.1 stratum'=2;16;;0 '127\.0\.0\.1 delay'=[\d.]+ms;;;0$/,
  );
});

void test('a server 500 ms ahead is CRITICAL with a positive offset; 70 ms behind is WARNING', async () => {
  const r = await runCheck(check, at(ahead));
  assert.equal(r.result, 2, r.message);
  const off = offsetOf(r.message);
  assert.ok(off > 450 && off < 550, r.message);
  const late = await runCheck(check, at(behind));
  assert.equal(late.result, 1, late.message);
  assert.ok(offsetOf(late.message) < -50, late.message);
  const relaxed = await runCheck(check, [...at(ahead), 'warn=offset > 1s or offset < -1s', 'crit=none']);
  assert.equal(relaxed.result, 0, relaxed.message);
});

void test("kiss-o'-death, a silent peer and a closed port are CRITICAL with the reason", async () => {
  const k = await runCheck(check, [...at(kiss), 'detail-syntax=${result}: ${message}']);
  assert.equal(k.result, 2);
  assert.equal(k.message, "CRITICAL: kiss: kiss-o'-death RATE");
  const s = await runCheck(check, [...at(silent), 'timeout=300', 'detail-syntax=${result}: ${message}']);
  assert.equal(s.message, 'CRITICAL: timeout: timed out after 300 ms while waiting for the reply');
  const both = await runCheck(check, [`server=127.0.0.1,localhost`, `port=${inSync.port}`, 'detail-syntax=${server}']);
  assert.equal(both.message, 'OK: 127.0.0.1, localhost');
});

void test('server= is required; help lists options and names', async () => {
  assert.equal((await runCheck(check, [])).message, 'server= is required (the NTP server to ask)');
  const help = await runCheck(check, ['help']);
  for (const word of [
    'server=',
    'port=',
    'timeout=',
    'offset (ms)',
    'stratum (number)',
    'warning=offset > 50 or offset < -50 or stratum >= 16',
  ])
    assert.ok(help.message.includes(word), word);
});

void test('NTP timestamps round-trip to within a microsecond', () => {
  const b = Buffer.alloc(8);
  for (const t of [0, 1_700_000_000_123.456, Date.now()]) {
    writeNtpTime(b, 0, t);
    assert.ok(Math.abs(readNtpTime(b, 0) - t) < 0.001, String(t));
  }
});
