/**
 * The system and disk checks against the host's own view: /proc files,
 * free, df, uname, and processes this test starts. The checks run as
 * queries through a real core with CheckSystem, CheckDisk and CheckHelpers.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync, utimesSync, mkdirSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { loadSettingsText } from '../../src/settings/model/load.js';
import { startLocalCore, type LocalCore } from '../../src/cli/local-core.js';
import type { PerfValue, QueryResult } from '../../src/core/result.js';
import { drivesizeCheck } from '../../src/checks/disk/drivesize-check.js';
import { CheckArguments } from '../../src/checks/arguments.js';
import { inRange } from '../../src/in-range.js';
import { defined } from '../helpers/defined.js';
import { Teardown } from '../helpers/teardown.js';

let dir = '';
let local: LocalCore;
const children: ChildProcess[] = [];
const made = new Teardown();

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'checks-host-'));
  made.defer(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'agent.ini');
  const text = '[/modules]\nCheckSystem = enabled\nCheckDisk = enabled\nCheckHelpers = enabled\n';
  writeFileSync(file, text);
  const loaded = loadSettingsText(text, file);
  assert.ok(loaded.ok, JSON.stringify(loaded.problems));
  local = made.add(await startLocalCore(loaded.snapshot), (l) => l.stop());
  assert.deepEqual(local.failed, []);
});

after(() => made.close());

const q = (cmd: string, ...args: string[]): Promise<QueryResult> => local.core.query(cmd, args);
const perf = (r: QueryResult, alias: string): PerfValue => {
  const p = r.perf.find((x) => x.alias === alias);
  assert.ok(p, `no perf ${alias} in ${JSON.stringify(r.perf)}`);
  return p;
};
const meminfo = (): Record<string, number> =>
  Object.fromEntries(
    readFileSync('/proc/meminfo', 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf(':')), Number(/(\d+)/.exec(l)?.[1] ?? 0) * 1024]),
  );

void test('check_memory matches /proc/meminfo and free', async () => {
  const r = await q('check_memory', 'perf-config=*(unit:B)', 'warn=none', 'crit=none');
  assert.equal(r.result, 0, r.message);
  const m = meminfo();
  const phys = perf(r, 'physical');
  assert.equal(phys.maximum, m.MemTotal, 'total is MemTotal');
  const used = defined(m.MemTotal) - defined(m.MemAvailable);
  assert.ok(Math.abs((phys.value as number) - used) < defined(m.MemTotal) * 0.05, `used ${phys.value} vs ${used}`);
  assert.equal(perf(r, 'swap').maximum, m.SwapTotal);
  // free -b: "Mem:  total used free shared buff/cache available"
  const free = execFileSync('free', ['-b'], { encoding: 'utf8' }).split('\n');
  const mem = (free.find((l) => l.startsWith('Mem:')) as string).trim().split(/\s+/).map(Number);
  const swap = (free.find((l) => l.startsWith('Swap:')) as string).trim().split(/\s+/).map(Number);
  assert.equal(phys.maximum, mem[1]);
  assert.ok(
    Math.abs(defined(phys.maximum) - (phys.value as number) - inRange(mem, 6)) < inRange(mem, 1) * 0.05,
    'free = available',
  );
  assert.equal(perf(r, 'swap').maximum, swap[1]);
  const pct = perf(r, 'physical %');
  assert.equal(pct.unit, '%');
  assert.ok(Math.abs((pct.value as number) - (used / defined(m.MemTotal)) * 100) < 5);
});

void test('check_memory thresholds around the current use', async () => {
  const r0 = await q('check_memory', 'type=physical', 'perf-config=*(unit:B)', 'warn=none', 'crit=none');
  const pct = perf(r0, 'physical %').value as number;
  assert.equal(
    (await q('check_memory', 'type=physical', `warn=used > ${Math.max(0, pct - 2)}%`, 'crit=none')).result,
    1,
  );
  assert.equal((await q('check_memory', 'type=physical', `warn=used > ${pct + 2}%`, 'crit=none')).result, 0);
  assert.equal((await q('check_memory', 'type=physical', 'crit=free < 1k', 'warn=none')).result, 0);
  assert.equal((await q('check_memory', 'type=physical', 'crit=size lt 1t', 'warn=none')).result, 2);
});

void test('check_drivesize matches df', async () => {
  const df = inRange(
    execFileSync('df', ['-B1', '--output=size,used,avail', '/'], { encoding: 'utf8' }).trim().split('\n'),
    1,
  )
    .trim()
    .split(/\s+/)
    .map(Number);
  const [item] = await drivesizeCheck().collect(new CheckArguments([['drive', '/']]), {
    signal: new AbortController().signal,
    now: Date.now() / 1000,
  });
  assert.ok(item);
  assert.equal(item.size, df[0], 'size');
  const slack = 256 * 1024 * 1024; // others write to the disk meanwhile
  assert.ok(Math.abs((item.used as number) - inRange(df, 1)) < slack, `used ${item.used} vs df ${df[1]}`);
  // free counts every free block (as NSClient++), user_free what df calls Avail; the percentages add up to 100.
  assert.ok(
    Math.abs((item.free as number) - (inRange(df, 0) - inRange(df, 1))) < slack,
    `free ${item.free} vs df size - used ${inRange(df, 0) - inRange(df, 1)}`,
  );
  assert.ok(
    Math.abs((item.user_free as number) - inRange(df, 2)) < slack,
    `user_free ${item.user_free} vs df ${df[2]}`,
  );
  assert.ok(Math.abs((item.used_pct as number) + (item.free_pct as number) - 100) < 1e-9);
  // A path checks the file system that holds it, named by the path.
  const tmpFs = inRange(
    execFileSync('df', ['-B1', '--output=size,target', '/tmp'], { encoding: 'utf8' }).trim().split('\n'),
    1,
  )
    .trim()
    .split(/\s+/);
  const [tmp] = await drivesizeCheck().collect(new CheckArguments([['drive', '/tmp']]), {
    signal: new AbortController().signal,
    now: Date.now() / 1000,
  });
  assert.deepEqual([tmp?.drive, tmp?.mount, tmp?.size], ['/tmp', tmpFs[1], Number(tmpFs[0])]);
  const r = await q('check_drivesize', 'drive=/', 'perf-config=*(unit:B)', 'warn=none', 'crit=none');
  assert.equal(r.result, 0, r.message);
  assert.equal(perf(r, '/ used').maximum, df[0]);
  const bad = await q('check_drivesize', 'drive=/no/such/mount');
  assert.deepEqual(
    [bad.result, bad.message],
    [3, 'check_drivesize failed: not a mount point or an existing path: /no/such/mount'],
  );
  const all = await q('check_drivesize', 'filter=none', 'show-all', 'warn=none', 'crit=none', 'detail-syntax=%(drive)');
  assert.match(all.message, /[:,] \/proc(, |$)/, 'filter=none shows pseudo file systems');
  const fixed = await q('check_drivesize', 'warn=none', 'crit=none', 'show-all', 'detail-syntax=%(drive)');
  assert.doesNotMatch(fixed.message, /\/proc/);
  const fs = await q('check_drivesize', "filter=fs = 'ext4' and drive = '/'", 'crit=free < 100%', 'warn=none');
  assert.equal(fs.result, readFileSync('/proc/self/mounts', 'utf8').includes(' / ext4 ') ? 2 : 3);
});

void test('check_uptime matches /proc/uptime', async () => {
  const r = await q('check_uptime', 'warn=none', 'crit=none');
  const up = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
  assert.equal(perf(r, 'uptime').unit, 's');
  assert.ok(Math.abs((perf(r, 'uptime').value as number) - up) < 2);
  const s = Math.floor(up);
  assert.equal((await q('check_uptime', `crit=uptime > ${s - 5}s`, 'warn=none')).result, 2);
  assert.equal((await q('check_uptime', `crit=uptime > ${s + 60}`, 'warn=none')).result, 0);
  assert.equal((await q('check_uptime', 'crit=boot < -1s', 'warn=none')).result, 2, 'booted more than a second ago');
  assert.match(
    (await q('check_uptime')).message,
    /^(OK|WARNING|CRITICAL): uptime: .*, boot: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(UTC\)$/,
  );
});

void test('check_process sees processes this test starts and stops', async () => {
  const exe = join(dir, 'agtsleeper');
  copyFileSync('/bin/sleep', exe);
  execFileSync('chmod', ['755', exe]);
  for (let i = 0; i < 2; i++)
    children.push(made.add(spawn(exe, ['30'], { stdio: 'ignore' }), (c) => c.kill('SIGKILL')));
  await new Promise((r) => setTimeout(r, 100));
  const rss = children
    .map((c) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${c.pid}/status`, 'utf8'))?.[1]) * 1024)
    .reduce((a, b) => a + b, 0);
  let r = await q('check_process', 'process=agtsleeper', 'perf-config=*(unit:B)');
  assert.deepEqual([r.result, r.message], [0, 'OK: all processes are ok.']);
  assert.equal(perf(r, 'agtsleeper running').value, 2);
  assert.ok(Math.abs((perf(r, 'agtsleeper memory').value as number) - rss) <= 64 * 1024, 'memory is the sum of VmRSS');
  assert.equal((await q('check_process', 'process=agtsleeper', 'warn=running < 3')).result, 1);
  assert.equal((await q('check_process', 'process=agtsleeper', 'warn=running < 2')).result, 0);
  r = await q('check_process', 'process=agtsleeper', 'process=agtnotthere');
  assert.deepEqual([r.result, r.message], [2, 'CRITICAL: agtnotthere=stopped']);
  for (const c of children) c.kill('SIGKILL');
  await Promise.all(
    children.map(
      (c) => new Promise((res) => (c.exitCode !== null || c.signalCode !== null ? res(null) : c.once('exit', res))),
    ),
  );
  r = await q('check_process', 'process=agtsleeper');
  assert.deepEqual([r.result, r.message], [2, 'CRITICAL: agtsleeper=stopped']);
  const all = await q('check_process', `filter=pid = ${process.pid}`, 'show-all');
  assert.match(all.message, /^OK: node=started$|^OK: .*=started$/);
});

void test('check_cpu, check_load and check_os_version', async () => {
  let r = await q('check_cpu', 'warn=none', 'crit=none', 'show-all');
  assert.equal(r.result, 0);
  // The windows as asked once the sampler has a second of history; before that one fresh 500 ms interval, labelled so.
  const labels = r.perf.map((p) => p.alias);
  assert.ok(
    JSON.stringify(labels) === JSON.stringify(['total 5s', 'total 1m', 'total 5m']) ||
      JSON.stringify(labels) === JSON.stringify(['total 500ms']),
    labels.join(', '),
  );
  for (const p of r.perf) assert.ok((p.value as number) >= 0 && (p.value as number) <= 100);
  r = await q('check_cpu', 'filter=none', 'time=5s');
  assert.equal(r.perf.length, cpus().length + 1);
  const total = r.perf.find((p) => /^total (5s|500ms)$/.test(p.alias));
  assert.equal(total?.warning, 80);
  assert.equal(total.critical, 90);
  assert.equal((await q('check_cpu', 'crit=load ge 0')).result, 2);
  assert.equal((await q('check_cpu', 'warn=load gt 100', 'crit=load gt 100')).result, 0);
  // Windows up to an hour (NSClient++'s buffer); longer is a clear error.
  assert.equal((await q('check_cpu', 'time=15m', 'time=1h', 'warn=none', 'crit=none')).result, 0);
  const bad = await q('check_cpu', 'time=61m');
  assert.deepEqual(
    [bad.result, bad.message],
    [3, 'time=61m is not a window between 1s and 3600s (such as 5s, 1m, 15m, 1h)'],
  );
  r = await q('check_load', 'warn=none', 'crit=none');
  const [m1] = readFileSync('/proc/loadavg', 'utf8').split(' ').map(Number);
  assert.ok(Math.abs((perf(r, 'load 1m').value as number) - defined(m1)) < 2);
  r = await q('check_os_version');
  assert.equal(r.result, 0);
  assert.ok(r.message.includes(execFileSync('uname', ['-r'], { encoding: 'utf8' }).trim()), r.message);
});

void test('check_files counts, sizes and ages files; thresholds at their limits', async () => {
  const folder = join(dir, 'files');
  mkdirSync(join(folder, 'deep'), { recursive: true });
  writeFileSync(join(folder, 'a.log'), 'x'.repeat(1000));
  writeFileSync(join(folder, 'b.log'), 'x'.repeat(10));
  writeFileSync(join(folder, 'c.txt'), 'x');
  writeFileSync(join(folder, 'deep', 'd.log'), 'x'.repeat(2048));
  const old = Date.now() / 1000 - 7200;
  utimesSync(join(folder, 'b.log'), old, old);
  const run = (...args: string[]): Promise<QueryResult> => q('check_files', `path=${folder}`, 'pattern=*.log', ...args);
  let r = await run();
  assert.deepEqual(
    [r.result, r.message, r.perf],
    [0, 'OK: All 2 files are ok', [{ alias: 'count', value: 2, minimum: 0 }]],
  );
  assert.equal((await run('max-depth=2')).perf[0]?.value, 3);
  assert.equal((await run('warn=size > 1000')).result, 0, 'at the limit');
  assert.equal((await run('warn=size > 999')).result, 1, 'just over');
  assert.equal((await run('warn=size >= 1000')).result, 1);
  assert.equal((await run('crit=size > 1k', 'max-depth=2')).result, 2);
  r = await run('crit=age > 1h');
  assert.deepEqual([r.result, r.message], [2, 'CRITICAL: 1/2 files (b.log: 10B)']);
  assert.equal((await run('crit=written < -1h')).result, 2);
  assert.equal((await run('crit=age > 3h')).result, 0);
  assert.equal((await run('warn=count > 1')).result, 1);
  assert.equal((await run('warn=count > 2')).result, 0);
  assert.equal((await q('check_files', `path=${folder}`, 'pattern=*.none')).result, 3);
  assert.equal((await q('check_files')).result, 3);
});

void test('check_negate, check_multi and check_timeout run other queries', async () => {
  let r = await q('check_negate', 'command=check_critical', 'critical=ok');
  assert.deepEqual([r.result, r.message], [0, 'CRITICAL: check_critical']);
  r = await q('check_negate', 'command=check_ok', 'o=w', 'arguments=fine');
  assert.deepEqual([r.result, r.message], [1, 'fine']);
  r = await q('check_negate', 'command=check_memory', 'crit=ok', 'warn=ok', '--', 'crit=used > 0%');
  assert.equal(r.result, 0);
  assert.ok(r.perf.length > 0);
  r = await q(
    'check_multi',
    'command=check_ok "all fine"',
    'command=check_warning',
    'command=check_uptime warn=none crit=none',
    'separator=; ',
  );
  assert.equal(r.result, 1);
  assert.match(r.message, /^all fine; WARNING: check_warning; OK: uptime: /);
  assert.equal(r.perf[0]?.alias, 'uptime');
  assert.equal((await q('check_multi', 'command=check_ok', 'command=nosuch_query')).result, 3);
  assert.equal((await q('check_multi', 'command=check_critical', 'command=nosuch_query')).result, 2);
  r = await q('check_timeout', 'command=check_ok', 'timeout=5');
  assert.deepEqual([r.result, r.message], [0, 'OK: check_ok']);
  assert.equal((await q('check_negate')).result, 3);
  assert.equal((await q('check_negate', 'command=check_ok', 'ok=sideways')).result, 3);
});
