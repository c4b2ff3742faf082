/**
 * check_dns against a DNS server on 127.0.0.1 written in test/helpers
 * (UDP, answers from a table): record types, NXDOMAIN, expected answers,
 * a silent server, a refused port, a forged reply with the wrong id, and
 * the default server from a resolv.conf. Plus the wire decoder on broken
 * packets.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSocket } from 'node:dgram';
import { runCheck } from '../../../../src/checks/engine.js';
import { toNagios } from '../../../../src/core/result.js';
import { NetLimits } from '../../../../src/checks/net/net-context.js';
import { dnsCheck } from '../../../../src/checks/net/dns-check.js';
import { DnsWireError, decodeReply, encodeQuery } from '../../../../src/checks/net/dns-wire.js';
import { dnsPeer, type DnsRecords, type Peer } from '../../../helpers/net-peers.js';

const RECORDS: DnsRecords = {
  'www.test.example': { A: ['192.0.2.10', '192.0.2.11'], AAAA: ['2001:db8::10'] },
  'mail.test.example': {
    MX: [
      [10, 'mx1.test.example'],
      [20, 'mx2.test.example'],
    ],
  },
  'txt.test.example': { TXT: ['v=spf1 -all'] },
};

const check = dnsCheck(new NetLimits({ maxConcurrent: 8 }));
let server: Peer;
let silent: Peer;
let forging: Peer;
const asked: string[] = [];

before(async () => {
  server = await dnsPeer(RECORDS, { onQuery: (name) => asked.push(name) });
  silent = await dnsPeer(RECORDS, { mode: 'silent' });
  forging = await dnsPeer(RECORDS, { mode: 'wrong-id' });
});
after(async () => {
  await Promise.all([server.close(), silent.close(), forging.close()]);
});

const at = (p: Peer): string[] => ['server=127.0.0.1', `port=${p.port}`];

void test('an A lookup is OK with the answers; time in ms as perf data', async () => {
  const r = await runCheck(check, ['host=www.test.example', ...at(server)]);
  assert.equal(r.result, 0, r.message);
  assert.match(
    r.message,
    /^OK: www\.test\.example A from 127\.0\.0\.1: returns 192\.0\.2\.10, 192\.0\.2\.11 in [\d.]+ms$/,
  );
  assert.match(toNagios(r), /\|'www\.test\.example time'=[\d.]+ms;1000;;0$/);
  assert.ok(asked.includes('www.test.example'));
});

void test('AAAA, MX and TXT records', async () => {
  const detail = 'detail-syntax=${answers} (${answer_count}, first ${first})';
  assert.equal(
    (await runCheck(check, ['host=www.test.example', 'type=AAAA', ...at(server), detail])).message,
    'OK: 2001:db8::10 (1, first 2001:db8::10)',
  );
  assert.equal(
    (await runCheck(check, ['host=mail.test.example', 'type=mx', ...at(server), detail])).message,
    'OK: 10 mx1.test.example,20 mx2.test.example (2, first 10 mx1.test.example)',
  );
  assert.equal(
    (await runCheck(check, ['host=txt.test.example', 'type=TXT', ...at(server), detail])).message,
    'OK: v=spf1 -all (1, first v=spf1 -all)',
  );
});

void test('NXDOMAIN and a name without records of the type are CRITICAL', async () => {
  const nx = await runCheck(check, ['host=nothing.test.example', ...at(server), 'detail-syntax=${result} ${rcode}']);
  assert.equal(nx.result, 2);
  assert.equal(nx.message, 'CRITICAL: NXDOMAIN NXDOMAIN');
  const none = await runCheck(check, ['host=txt.test.example', ...at(server), 'detail-syntax=${result}: ${message}']);
  assert.equal(none.message, 'CRITICAL: noanswer: no A record');
});

void test('expect= must equal the answers in any order', async () => {
  const same = await runCheck(check, ['host=www.test.example', ...at(server), 'expect=192.0.2.11,192.0.2.10']);
  assert.equal(same.result, 0, same.message);
  const other = await runCheck(check, [
    'host=www.test.example',
    ...at(server),
    'expect=192.0.2.10',
    'detail-syntax=${result}: ${message}',
  ]);
  assert.equal(other.result, 2);
  assert.equal(other.message, 'CRITICAL: mismatch: returns 192.0.2.10, 192.0.2.11, expected 192.0.2.10');
});

void test('a silent server times out; a closed port is refused; a forged reply is ignored', async () => {
  const quiet = await runCheck(check, [
    'host=www.test.example',
    ...at(silent),
    'timeout=300',
    'detail-syntax=${message}',
  ]);
  assert.equal(quiet.result, 2);
  assert.equal(quiet.message, 'CRITICAL: timed out after 300 ms while waiting for the reply');
  const sock = createSocket('udp4');
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()));
  const port = sock.address().port;
  await new Promise<void>((r) => sock.close(() => r()));
  const refused = await runCheck(check, [
    'host=www.test.example',
    'server=127.0.0.1',
    `port=${port}`,
    'timeout=3000',
    'detail-syntax=${result}',
  ]);
  assert.equal(refused.message, 'CRITICAL: refused');
  const forged = await runCheck(check, ['host=www.test.example', ...at(forging), 'detail-syntax=${result} ${answers}']);
  assert.equal(forged.message, 'OK: ok 192.0.2.10,192.0.2.11');
});

void test('without server= the first nameserver of resolv.conf is asked', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'check-dns-'));
  try {
    const conf = join(dir, 'resolv.conf');
    writeFileSync(conf, '# test\nsearch test.example\nnameserver 127.0.0.1\nnameserver 127.0.0.2\n');
    const r = await runCheck(dnsCheck(new NetLimits({ maxConcurrent: 8 }), conf), [
      'host=www.test.example',
      `port=${server.port}`,
      'detail-syntax=${server} ${result}',
    ]);
    assert.equal(r.message, 'OK: 127.0.0.1 ok');
    writeFileSync(conf, '# no servers\n');
    const none = await runCheck(dnsCheck(new NetLimits({ maxConcurrent: 8 }), conf), ['host=www.test.example']);
    assert.equal(none.result, 3);
    assert.equal(none.message, `server= is required: no nameserver in ${conf}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('bad arguments answer UNKNOWN; help lists options and names', async () => {
  assert.equal((await runCheck(check, ['server=127.0.0.1'])).message, 'host= is required (the name to look up)');
  assert.match(
    (await runCheck(check, ['host=a', 'type=BOGUS', 'server=127.0.0.1'])).message,
    /^type=BOGUS is not one of A, NS, CNAME/,
  );
  const help = await runCheck(check, ['help']);
  for (const word of [
    'host=',
    'server=',
    'port=',
    'type=',
    'expect=',
    'norec',
    'rcode (string)',
    "critical=result != 'ok'",
  ])
    assert.ok(help.message.includes(word), word);
});

void test('the decoder refuses cut-short replies and compression loops', () => {
  const q = encodeQuery(7, 'a.example', 1);
  const reply = Buffer.from(q);
  reply.writeUInt16BE(0x8180, 2);
  assert.equal(decodeReply(reply).question.name, 'a.example');
  assert.throws(() => decodeReply(reply.subarray(0, 14)), DnsWireError);
  assert.throws(() => decodeReply(q), /not a reply/);
  const loop = Buffer.concat([reply.subarray(0, 12), Buffer.from([0xc0, 12, 0, 1, 0, 1])]);
  assert.throws(() => decodeReply(loop), /compression loop/);
  assert.throws(() => encodeQuery(1, `${'x'.repeat(64)}.example`, 1), /longer than 63/);
});
