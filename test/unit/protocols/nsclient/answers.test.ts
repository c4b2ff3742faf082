/**
 * What each check_nt command asks the agent and the answer it makes of the
 * result: numbers from the structured perf data, check_nt's formats, and
 * `ERROR: …` when a value is missing or the arguments cannot be used.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mapCommand, type Mapped, type MapOptions } from '../../../../src/protocols/nsclient/answers.js';
import type { PerfValue, QueryResult } from '../../../../src/core/result.js';
import { inRange } from '../../../../src/in-range.js';

const options: MapOptions = {
  driveLetters: new Map([
    ['C', '/'],
    ['D', '/var'],
  ]),
  maxCpuMinutes: 5,
  now: () => Date.parse('2026-11-26T12:00:00Z') / 1000,
};
const result = (command: string, perf: PerfValue[], message = 'OK', status: 0 | 1 | 2 | 3 = 0): QueryResult => ({
  command,
  result: status,
  message,
  perf,
});
const mapped = (m: Mapped | string): Mapped => {
  if (typeof m === 'string') assert.fail(m);
  return m;
};

void test('CPULOAD asks check_cpu for every window; the first one answers, rounded, with how much of it is covered', () => {
  const m = mapped(mapCommand('cpuload', ['1', '5'], options));
  assert.equal(m.query, 'check_cpu');
  assert.deepEqual(m.args, [
    'time=1m',
    'time=5m',
    'warn=none',
    'crit=none',
    'top-syntax=%(list)',
    'ok-syntax=%(list)',
    'detail-syntax=%(time)=%(covered)',
  ]);
  const perf = [
    { alias: 'total 5m', value: 10 },
    { alias: 'total 1m', value: 42.6 },
  ];
  assert.equal(m.answer(result('check_cpu', perf, '1m=60, 5m=300')), '43');
  // The first window, 1 minute, covered for 45 s of it: said after the number (check_nt reads the number).
  assert.equal(m.answer(result('check_cpu', perf, '1m=45, 5m=45')), '43 (45 s of 1 minute)');
  const five = mapped(mapCommand('cpuload', ['5'], options));
  assert.equal(five.answer(result('check_cpu', [{ alias: 'total 5m', value: 3 }], '5m=130')), '3 (2 of 5 minutes)');
  // Just after start check_cpu measures one fresh interval: that answers, and says so.
  assert.equal(
    m.answer(result('check_cpu', [{ alias: 'total 500ms', value: 7.2 }], '500ms=0.5')),
    '7 (0.5 s of 1 minute)',
  );
  assert.equal(
    m.answer(result('check_cpu', [], 'check_cpu failed: no /proc/stat', 3)),
    'ERROR: check_cpu failed: no /proc/stat',
  );
});

void test('CPULOAD refuses windows it cannot answer', () => {
  assert.equal(
    mapCommand('cpuload', [], options),
    'ERROR: CPULOAD needs a number of minutes (check_nt -l MINUTES,WARN,CRIT)',
  );
  assert.equal(mapCommand('cpuload', ['x'], options), 'ERROR: CPULOAD x is not a number of minutes');
  assert.equal(mapCommand('cpuload', ['0'], options), 'ERROR: CPULOAD 0 is not a number of minutes');
  assert.match(mapCommand('cpuload', ['60'], options) as string, /^ERROR: CPU load is kept for 5 minutes here/);
});

void test('UPTIME answers whole seconds', () => {
  const m = mapped(mapCommand('uptime', [], options));
  assert.equal(m.answer(result('check_uptime', [{ alias: 'uptime', value: 13640.9, unit: 's' }])), '13640');
});

void test('USEDDISKSPACE maps a drive letter (or takes a mount point) and answers FREE&TOTAL bytes', () => {
  const m = mapped(mapCommand('useddiskspace', ['d'], options));
  assert.deepEqual(m.args, [
    'drive=/var',
    'filter=none',
    'perf-config=*(unit:B)',
    'warn=none',
    'crit=none',
    'top-syntax=%(list)',
    'ok-syntax=%(list)',
    'detail-syntax=%(mount)',
  ]);
  const perf = [
    { alias: '/var used', value: 300, unit: 'B', maximum: 1000 },
    { alias: '/var used %', value: 30, maximum: 100 },
  ];
  assert.equal(m.answer(result('check_drivesize', perf, '/')), '700&1000', 'a letter may name any folder');
  const refused = 'ERROR: drive Q is neither in drive letters (C=/, D=/var) nor a mount point';
  assert.equal(mapCommand('useddiskspace', ['Q'], options), refused);
  // A path: answered when it is a mount point (the message names the mount that holds it), else refused as a letter is.
  const srv = mapped(mapCommand('useddiskspace', ['/srv/'], options));
  assert.equal(srv.args[0], 'drive=/srv');
  const srvPerf = [{ alias: '/srv used', value: 300, unit: 'B', maximum: 1000 }];
  assert.equal(srv.answer(result('check_drivesize', srvPerf, '/srv')), '700&1000');
  const etc = mapped(mapCommand('useddiskspace', ['/etc'], options));
  const notMount = 'ERROR: drive /etc is neither in drive letters (C=/, D=/var) nor a mount point';
  assert.equal(etc.answer(result('check_drivesize', [{ ...inRange(srvPerf, 0), alias: '/etc used' }], '/')), notMount);
  const failed = 'check_drivesize failed: not a mount point or an existing path: /etc';
  assert.equal(etc.answer(result('check_drivesize', [], failed, 3)), notMount, 'missing: the same answer');
});

void test('MEMUSE answers TOTAL&USED of RAM and swap together', () => {
  const m = mapped(mapCommand('memuse', [], options));
  const r = result('check_memory', [
    { alias: 'physical', value: 400, unit: 'B', maximum: 1000 },
    { alias: 'physical %', value: 40, maximum: 100 },
    { alias: 'swap', value: 50, unit: 'B', maximum: 500 },
  ]);
  assert.equal(m.answer(r), '1500&450');
});

void test('SERVICESTATE and PROCSTATE answer STATUS& TEXT; ShowAll lists every item, ShowFail the problems', () => {
  const fail = mapped(mapCommand('servicestate', ['ShowFail', 'cron', 'ssh'], options));
  assert.equal(fail.query, 'check_service');
  assert.deepEqual(fail.args.slice(0, 2), ['service=cron', 'service=ssh']);
  assert.ok(fail.args.includes('ok-syntax=OK: All services are in their appropriate state.'));
  assert.equal(fail.answer(result('check_service', [], 'CRITICAL: ssh: stopped', 2)), '2& CRITICAL: ssh: stopped');
  const all = mapped(mapCommand('procstate', ['ShowAll', 'sshd'], options));
  assert.deepEqual(all.args, [
    'process=sshd',
    'detail-syntax=${name}: ${state}',
    'filter=none',
    'top-syntax=${list}',
    'ok-syntax=${list}',
  ]);
  assert.equal(
    mapCommand('procstate', ['ShowAll'], options),
    'ERROR: PROCSTATE needs the processes to check (check_nt -l NAME,NAME)',
  );
});

void test('FILEAGE answers MINUTES&PATH WRITTEN for one file', () => {
  const m = mapped(mapCommand('fileage', ['/var/log/app.log'], options));
  assert.deepEqual(m.args.slice(0, 3), ['path=/var/log', 'pattern=app.log', 'max-depth=1']);
  assert.equal(m.answer(result('check_files', [], '2026-11-26 11:49:30')), '10&/var/log/app.log 2026-11-26 11:49:30');
  assert.equal(m.answer(result('check_files', [], 'UNKNOWN: No files found', 3)), 'ERROR: UNKNOWN: No files found');
  assert.equal(
    mapCommand('fileage', ['app.log'], options),
    'ERROR: FILEAGE needs the absolute path of a file (check_nt -l PATH)',
  );
  assert.equal(mapCommand('fileage', ['/var/log/*.log'], options), 'ERROR: FILEAGE takes one file, not a pattern');
});

void test('COUNTER and INSTANCES answer that Linux has no Windows performance counters', () => {
  for (const c of ['counter', 'instances'] as const)
    assert.match(
      mapCommand(c, ['x'], options) as string,
      /^ERROR: (COUNTER|INSTANCES) reads Windows performance counters/,
    );
});
