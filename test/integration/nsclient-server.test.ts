/**
 * Debian's check_nt against NSClientServer in a real agent process (port 0,
 * loopback), for every command: thresholds (-w/-c), -l lists, -d SHOWALL,
 * the password right and wrong, and the values compared with what the host
 * says (/proc, statfs). Raw peers send what check_nt cannot: garbage, an
 * oversized request, a request from 127.0.0.2 (not in allowed hosts);
 * hot-applied settings, a move to TLS and a move that cannot be taken.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statfsSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startAgent, listenerPort, replaceFile, type AgentProcess } from '../helpers/agent-process.js';
import { checkNt, rawRequest } from '../helpers/check-nt.js';
import { Teardown } from '../helpers/teardown.js';
import { waitUntil } from '../helpers/wait-until.js';
import { VERSION } from '../../src/version.js';

let agent: AgentProcess;
let port: number;
let files: string;
const made = new Teardown();
after(() => made.close());

const ini = (extra = ''): string => `[/modules]
CheckSystem = enabled
CheckDisk = enabled
NSClientServer = enabled

[/settings/default]
allowed hosts = 127.0.0.1
password = s3cret

[/settings/disk]
allowed paths = ${files}

[/settings/NSClient/server]
port = 0
bind to = 127.0.0.1
${extra}
`;

const nt = (...args: string[]) => checkNt(port, ['-s', 's3cret', ...args]);

before(async () => {
  agent = made.add(await startAgent({ ini: '[/modules]\n' }), (a) => a.stop());
  files = join(agent.dir, 'files');
  mkdirSync(files);
  const old = join(files, 'old.log');
  writeFileSync(old, 'x');
  const tenMinutesAgo = Date.now() / 1000 - 600;
  utimesSync(old, tenMinutesAgo, tenMinutesAgo);
  const mark = agent.mark();
  replaceFile(agent.settingsFile, ini());
  port = await listenerPort(agent, 'NSClientServer', mark);
});

void test('CLIENTVERSION names the agent; -l with another version is a WARNING', async () => {
  assert.deepEqual(await nt('-v', 'CLIENTVERSION'), { code: 0, out: `agent ${VERSION}` });
  assert.deepEqual(await nt('-v', 'CLIENTVERSION', '-l', 'NSClient++ 0.5.2'), {
    code: 1,
    out: `Wrong client version - running: agent ${VERSION}, required: NSClient++ 0.5.2`,
  });
});

void test('CPULOAD: one entry per window of the -l list, status from its thresholds; 15 minutes answers, a window over an hour is UNKNOWN', async () => {
  const r = await nt('-v', 'CPULOAD', '-l', '1,99,100,5,99,100');
  const m =
    /^CPU Load (\d+)% \(1 min average\) (\d+)% \(5 min average\) \| +'1 min avg Load'=\d+%;99;100;0;100 '5 min avg Load'=\d+%;99;100;0;100$/.exec(
      r.out,
    );
  assert.ok(m, r.out);
  const loads = [Number(m[1]), Number(m[2])];
  for (const v of loads) assert.ok(v >= 0 && v <= 100, r.out);
  // The status is check_nt's comparison (>=) of the values the server sent.
  assert.equal(r.code, loads.some((v) => v >= 100) ? 2 : loads.some((v) => v >= 99) ? 1 : 0, r.out);
  const low = await nt('-v', 'CPULOAD', '-l', '5,1,1');
  assert.equal(low.code, /^CPU Load 0%/.test(low.out) ? 0 : 2, low.out);
  // The common 5 and 15 minute pair: the sampler keeps an hour (sparse beyond 5 minutes).
  const pair = await nt('-v', 'CPULOAD', '-l', '5,99,100,15,99,100');
  assert.match(pair.out, /^CPU Load \d+% \(5 min average\) \d+% \(15 min average\) \| /, pair.out);
  assert.deepEqual(await nt('-v', 'CPULOAD', '-l', '61,80,90'), {
    code: 3,
    out: 'NSClient - ERROR: CPU load is kept for 60 minutes here; ask for at most 60 (check_nt -l 60,WARN,CRIT)',
  });
});

void test('CPULOAD on a fresh agent: the answer says how much of the window it covers; check_nt still reads the number', async () => {
  // The sampler started with CheckSystem, moments ago: a 5-minute window is not covered yet.
  const raw = await rawRequest(port, 's3cret&2&5');
  assert.match(raw, /^\d+ \((\d+(\.\d)? s|\d) of 5 minutes\)$/, raw);
  const r = await nt('-v', 'CPULOAD', '-l', '5,99,100');
  assert.match(r.out, /^CPU Load \d+% \(5 min average\) \| +'5 min avg Load'=\d+%;99;100;0;100$/, r.out);
  assert.ok(r.code >= 0 && r.code <= 2, r.out);
  // Once the history covers a window, its answer is the number alone; a longer one says 1 of its minutes.
  let one = '';
  await waitUntil(
    async () => /^\d+$/.test((one = await rawRequest(port, 's3cret&2&1'))),
    90_000,
    `a covered 1-minute window (last: ${one})`,
  );
  const five = await rawRequest(port, 's3cret&2&5');
  assert.match(five, /^\d+ \(1 of 5 minutes\)$/, five);
  assert.match(await rawRequest(port, 's3cret&2&60'), /^\d+ \(1 of 60 minutes\)$/);
  assert.match((await nt('-v', 'CPULOAD', '-l', '60,99,100')).out, /^CPU Load \d+% \(60 min average\) \| /);
});

void test('UPTIME is the host uptime (/proc/uptime), in the unit of -l, with -w/-c as lower bounds', async () => {
  const r = await nt('-v', 'UPTIME', '-l', 'seconds');
  const m = /^System Uptime - (\d+) day\(s\) (\d+) hour\(s\) (\d+) minute\(s\) \|uptime=(\d+)$/.exec(r.out);
  assert.ok(m, r.out);
  const host = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
  assert.ok(Math.abs(Number(m[4]) - host) < 30, `${m[4]} s against /proc/uptime ${host} s`);
  assert.equal(r.code, 0);
  assert.equal((await nt('-v', 'UPTIME', '-l', 'seconds', '-w', '999999999')).code, 1);
  assert.equal((await nt('-v', 'UPTIME', '-l', 'seconds', '-c', '999999999')).code, 2);
  assert.equal((await nt('-v', 'UPTIME', '-l', 'days', '-w', '0', '-c', '0')).code, Number(m[4]) < 86400 ? 2 : 0);
});

void test('USEDDISKSPACE: drive C is / (drive letters), sizes as statfs says; -w/-c are used percent', async () => {
  const fs = statfsSync('/');
  const total = (fs.blocks * fs.bsize) / 1073741824;
  const r = await nt('-v', 'USEDDISKSPACE', '-l', 'C');
  const m =
    /^C:\\ - total: ([\d.]+) Gb - used: ([\d.]+) Gb \((\d+)%\) - free ([\d.]+) Gb \((\d+)%\) \| 'C:\\ Used Space'=[\d.]+Gb;0\.00;0\.00;0\.00;([\d.]+)$/.exec(
      r.out,
    );
  assert.ok(m, r.out);
  assert.equal(m[1], total.toFixed(2));
  assert.equal(r.code, 0);
  assert.equal((await nt('-v', 'USEDDISKSPACE', '-l', 'C', '-w', '0', '-c', '101')).code, 1);
  assert.equal((await nt('-v', 'USEDDISKSPACE', '-l', 'C', '-w', '0', '-c', '0')).code, 2);
  assert.deepEqual(await nt('-v', 'USEDDISKSPACE', '-l', 'D'), {
    code: 3,
    out: 'NSClient - ERROR: drive D is neither in drive letters (C=/) nor a mount point',
  });
});

void test('MEMUSE: RAM and swap (Windows commit limit and charge) as /proc/meminfo says; -w/-c are used percent', async () => {
  const meminfo = readFileSync('/proc/meminfo', 'utf8');
  const kb = (k: string): number => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(meminfo)?.[1] ?? 0) * 1024;
  const r = await nt('-v', 'MEMUSE');
  const m =
    /^Memory usage: total:([\d.]+) MB - used: ([\d.]+) MB \((\d+)%\) - free: ([\d.]+) MB \((\d+)%\) \| 'Memory usage'=[\d.]+MB;0\.00;0\.00;0\.00;[\d.]+$/.exec(
      r.out,
    );
  assert.ok(m, r.out);
  // check_nt divides by 1048567 (sic).
  assert.equal(m[1], ((kb('MemTotal') + kb('SwapTotal')) / 1048567).toFixed(2));
  assert.equal(r.code, 0);
  assert.equal((await nt('-v', 'MEMUSE', '-w', '0', '-c', '101')).code, 1);
  assert.equal((await nt('-v', 'MEMUSE', '-w', '0', '-c', '0')).code, 2);
});

void test('PROCSTATE: running processes are OK, a missing one CRITICAL naming it; -d SHOWALL lists them all', async () => {
  assert.deepEqual(await nt('-v', 'PROCSTATE', '-l', 'node'), { code: 0, out: 'OK: All processes are running.' });
  assert.deepEqual(await nt('-v', 'PROCSTATE', '-l', 'node,no_such_process_x'), {
    code: 2,
    out: 'CRITICAL: no_such_process_x: stopped',
  });
  assert.deepEqual(await nt('-v', 'PROCSTATE', '-d', 'SHOWALL', '-l', 'node,no_such_process_x'), {
    code: 2,
    out: 'node: started, no_such_process_x: stopped',
  });
  assert.deepEqual(await nt('-v', 'PROCSTATE', '-d', 'SHOWALL', '-l', 'node'), { code: 0, out: 'node: started' });
});

void test('SERVICESTATE asks systemd for the units (UNKNOWN saying so on a host without systemd)', async () => {
  const r = await nt('-v', 'SERVICESTATE', '-l', 'no-such-unit-x');
  if (isSystemd()) {
    assert.equal(r.code, 2, r.out);
    assert.match(r.out, /no-such-unit-x: stopped/);
    assert.match(
      (await nt('-v', 'SERVICESTATE', '-d', 'SHOWALL', '-l', 'no-such-unit-x')).out,
      /^no-such-unit-x: stopped$/,
    );
  } else {
    assert.equal(r.code, 3, r.out);
    assert.match(r.out, /systemd is not running on this host/);
  }
});

void test('FILEAGE: minutes since the last write against -w/-c, under [/settings/disk] allowed paths only', async () => {
  const file = join(files, 'old.log');
  const ok = await nt('-v', 'FILEAGE', '-l', file, '-w', '15', '-c', '30');
  assert.equal(ok.code, 0, ok.out);
  assert.match(
    ok.out,
    new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d$`),
  );
  assert.equal((await nt('-v', 'FILEAGE', '-l', file, '-w', '5', '-c', '30')).code, 1);
  assert.equal((await nt('-v', 'FILEAGE', '-l', file, '-w', '1', '-c', '5')).code, 2);
  const outside = await nt('-v', 'FILEAGE', '-l', '/etc/hostname', '-w', '1', '-c', '5');
  assert.equal(outside.code, 3);
  assert.match(outside.out, /^NSClient - ERROR: \/etc is not under an allowed path/);
  assert.deepEqual(await nt('-v', 'FILEAGE', '-l', join(files, 'missing.log'), '-w', '1', '-c', '5'), {
    code: 3,
    out: 'NSClient - ERROR: UNKNOWN: No files found',
  });
});

void test('COUNTER and INSTANCES (Windows performance counters) answer an error that says so', async () => {
  for (const v of [
    ['-v', 'COUNTER', '-l', '\\Processor(_Total)\\% Processor Time'],
    ['-v', 'INSTANCES', '-l', 'Process'],
  ]) {
    const r = await nt(...v);
    assert.equal(r.code, 3, r.out);
    assert.match(
      r.out,
      /^NSClient - ERROR: (COUNTER|INSTANCES) reads Windows performance counters, which a Linux host does not have/,
    );
  }
});

void test('a wrong password, or none (check_nt sends None), is answered Bad request and logged', async () => {
  const mark = agent.mark();
  assert.deepEqual(await checkNt(port, ['-s', 'wrong', '-v', 'UPTIME']), {
    code: 3,
    out: 'NSClient - ERROR: Bad request.',
  });
  await agent.waitForLog(/NSClientServer: refused request from 127\.0\.0\.1: wrong password/, 10_000, mark);
  assert.deepEqual(await checkNt(port, ['-v', 'UPTIME']), { code: 3, out: 'NSClient - ERROR: Bad request.' });
});

void test('garbage, an unknown code and an oversized request are answered and logged; the server keeps serving', async () => {
  let mark = agent.mark();
  assert.equal(await rawRequest(port, 'GET / HTTP/1.0\r\n\r\n'), 'ERROR: Bad request.');
  await agent.waitForLog(/refused request from 127\.0\.0\.1: not a check_nt request/, 10_000, mark);
  assert.equal(await rawRequest(port, Buffer.from([0, 255, 38, 1, 2, 3])), 'ERROR: Bad request.');
  assert.equal(await rawRequest(port, 's3cret&99'), 'ERROR: Unknown command.');
  assert.equal(await rawRequest(port, 's3cret&x&1'), 'ERROR: Unknown command.');
  mark = agent.mark();
  assert.equal(await rawRequest(port, `s3cret&1&${'a'.repeat(20_000)}`), 'ERROR: Request too long.');
  await agent.waitForLog(/refused request from 127\.0\.0\.1: \d+ bytes, more than 4096/, 10_000, mark);
  assert.equal(await rawRequest(port, 's3cret&1'), `agent ${VERSION}`);
  // A peer that shuts down its side after the request (nc -N) is answered too.
  assert.equal(await rawRequest(port, 's3cret&1', { halfClose: true }), `agent ${VERSION}`);
  assert.equal((await nt('-v', 'CLIENTVERSION')).code, 0);
});

void test('a peer not in allowed hosts (127.0.0.2) is closed without an answer and logged', async () => {
  const mark = agent.mark();
  assert.equal(await rawRequest(port, 's3cret&1', { from: '127.0.0.2' }), '');
  await agent.waitForLog(
    /NSClientServer: refused connection from 127\.0\.0\.2: not in allowed hosts \[\/settings\/default\] allowed hosts/,
    10_000,
    mark,
  );
});

void test('hot apply: allow, password and allowed hosts change in place on the same port', async () => {
  replaceFile(agent.settingsFile, ini('allow = metrics\npassword = other'));
  await waitFor(async () => (await checkNt(port, ['-s', 'other', '-v', 'UPTIME'])).code === 0);
  let mark = agent.mark();
  assert.deepEqual(await checkNt(port, ['-s', 'other', '-v', 'CLIENTVERSION']), {
    code: 3,
    out: 'NSClient - ERROR: Command not allowed.',
  });
  await agent.waitForLog(/refused request from 127\.0\.0\.1: CLIENTVERSION is not in allow/, 10_000, mark);
  assert.deepEqual(await nt('-v', 'UPTIME'), { code: 3, out: 'NSClient - ERROR: Bad request.' });

  mark = agent.mark();
  replaceFile(agent.settingsFile, ini('allowed hosts = 127.0.0.2'));
  await waitFor(async () => (await rawRequest(port, 's3cret&1')) === '');
  await agent.waitForLog(
    /refused connection from 127\.0\.0\.1: not in allowed hosts \[\/settings\/NSClient\/server\] allowed hosts/,
    10_000,
    mark,
  );
  // check_nt reads the close without answer as a failed fetch.
  const refused = await nt('-v', 'MEMUSE');
  assert.equal(refused.out, 'could not fetch information from server');
  assert.notEqual(refused.code, 0);
  assert.equal(await rawRequest(port, 's3cret&1', { from: '127.0.0.2' }), `agent ${VERSION}`);

  // No password at all: warned at once, every request refused.
  mark = agent.mark();
  replaceFile(agent.settingsFile, ini().replace('password = s3cret\n', ''));
  await agent.waitForLog(/AGENT_WARN_NSCLIENT_NO_PASSWORD/, 10_000, mark);
  assert.deepEqual(await nt('-v', 'UPTIME'), { code: 3, out: 'NSClient - ERROR: Bad request.' });
  await agent.waitForLog(/refused request from 127\.0\.0\.1: no password is configured/, 10_000, mark);
});

void test('use ssl moves the listener to TLS (a self-signed certificate created), then back to plain', async () => {
  let mark = agent.mark();
  replaceFile(agent.settingsFile, ini('use ssl = 1'));
  await agent.waitForLog(/NSClientServer: created a self-signed certificate \S+nsclient-server\.pem/, 10_000, mark);
  const tlsPort = Number(
    (await agent.waitForLog(/NSClientServer: listening on 127\.0\.0\.1:(\d+) \(TLS\)/, 10_000, mark))[1],
  );
  assert.equal(await rawRequest(tlsPort, 's3cret&1', { tls: true }), `agent ${VERSION}`);
  mark = agent.mark();
  replaceFile(agent.settingsFile, ini());
  port = Number((await agent.waitForLog(/NSClientServer: listening on 127\.0\.0\.1:(\d+) \(plain\)/, 10_000, mark))[1]);
  assert.deepEqual(await nt('-v', 'CLIENTVERSION'), { code: 0, out: `agent ${VERSION}` });
});

void test('a move that cannot be taken (the new port is held) keeps every previous setting: port, password, allow', async () => {
  const held = createServer();
  await new Promise<void>((res) => held.listen(0, '127.0.0.1', res));
  const heldPort = (held.address() as AddressInfo).port;
  try {
    const mark = agent.mark();
    replaceFile(
      agent.settingsFile,
      ini(`port = ${heldPort}\npassword = other\nallow = info`).replace('port = 0\n', ''),
    );
    await agent.waitForLog(/NSClientServer[^\n]*kept previous settings/, 10_000, mark);
    assert.equal((await nt('-v', 'MEMUSE')).code, 0);
    assert.deepEqual(await checkNt(port, ['-s', 'other', '-v', 'CLIENTVERSION']), {
      code: 3,
      out: 'NSClient - ERROR: Bad request.',
    });
  } finally {
    await new Promise<void>((res) => held.close(() => res()));
    replaceFile(agent.settingsFile, ini());
  }
});

/** Polls `cond` (at most 40 times, 250 ms apart) until it holds. */
async function waitFor(cond: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 40; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.fail('condition not met within 10 s');
}

function isSystemd(): boolean {
  try {
    statfsSync('/run/systemd/system');
    return true;
  } catch {
    return false;
  }
}
