/**
 * Name resolution without getaddrinfo: IP literals, a hosts file written
 * here, and c-ares asking a DNS server on 127.0.0.1 (the test's own), never
 * the machine's resolv.conf servers. Plus the per-check limiter's setMax.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveHost } from '../../../../src/checks/net/resolve.js';
import { NetLimits, ResolveError } from '../../../../src/checks/net/net-context.js';
import { dnsPeer, type Peer } from '../../../helpers/net-peers.js';

let dir: string;
let hosts: string;
let dns: Peer;
let silent: Peer;
const signal = new AbortController().signal;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'resolve-'));
  hosts = join(dir, 'hosts');
  writeFileSync(
    hosts,
    '# test hosts\n127.0.0.1\tlocalhost web.internal\n::1 localhost ip6-localhost\n127.0.0.5 only4 # comment\n',
  );
  dns = await dnsPeer({ 'db.test.example': { A: ['127.0.0.9'], AAAA: ['::1'] } });
  silent = await dnsPeer({}, { mode: 'silent' });
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await Promise.all([dns.close(), silent.close()]);
});

void test('IP literals are used as given; a family that does not fit is an error', async () => {
  assert.deepEqual(await resolveHost('192.0.2.1', { signal, timeoutMs: 100 }), { address: '192.0.2.1', family: 4 });
  assert.deepEqual(await resolveHost('[::1]', { signal, timeoutMs: 100 }), { address: '::1', family: 6 });
  await assert.rejects(resolveHost('::1', { family: 4, signal, timeoutMs: 100 }), ResolveError);
});

void test('names come from the hosts file first, by family, case-insensitively', async () => {
  assert.deepEqual(await resolveHost('WEB.internal', { signal, timeoutMs: 100, hostsPath: hosts }), {
    address: '127.0.0.1',
    family: 4,
  });
  assert.deepEqual(await resolveHost('localhost', { family: 6, signal, timeoutMs: 100, hostsPath: hosts }), {
    address: '::1',
    family: 6,
  });
  writeFileSync(hosts, '127.0.0.7 web.internal\n');
  assert.deepEqual(
    await resolveHost('web.internal', { signal, timeoutMs: 100, hostsPath: hosts }),
    { address: '127.0.0.7', family: 4 },
    'reread after a change',
  );
});

void test('other names are asked of the DNS servers through c-ares, bounded by the timeout', async () => {
  const servers = [`127.0.0.1:${dns.port}`];
  assert.deepEqual(await resolveHost('db.test.example', { signal, timeoutMs: 2000, hostsPath: hosts, servers }), {
    address: '127.0.0.9',
    family: 4,
  });
  assert.deepEqual(
    await resolveHost('db.test.example', { family: 6, signal, timeoutMs: 2000, hostsPath: hosts, servers }),
    { address: '::1', family: 6 },
  );
  await assert.rejects(
    resolveHost('missing.test.example', { signal, timeoutMs: 2000, hostsPath: hosts, servers }),
    /cannot resolve missing\.test\.example \(ENOTFOUND\)/,
  );
  await assert.rejects(
    resolveHost('db.test.example', { signal, timeoutMs: 200, hostsPath: hosts, servers: [`127.0.0.1:${silent.port}`] }),
    /cannot resolve db\.test\.example \(ETIMEOUT\)/,
  );
});

void test('NetLimits: one limiter per check; setMax changes them all', () => {
  const limits = new NetLimits({ maxConcurrent: 3 });
  const a = limits.limiter('check_tcp');
  assert.equal(limits.limiter('check_tcp'), a);
  assert.notEqual(limits.limiter('check_dns'), a);
  limits.setMax(1);
  let running = 0;
  let peak = 0;
  const task = async (): Promise<void> => {
    running++;
    peak = Math.max(peak, running);
    await new Promise((r) => setImmediate(r));
    running--;
  };
  return Promise.all([a.run(task), a.run(task), a.run(task)]).then(() => assert.equal(peak, 1));
});
