/**
 * NSClient++'s legacy command names against the modern check on this
 * machine: each legacy form answers what the modern form NSClient++
 * translates it to answers (state, message and performance data), taken
 * back to back. Figures that move between two readings (memory bytes, CPU
 * load, uptime seconds) are compared with a tolerance and in the message
 * as digits; a state that flips between the two readings is read again (at
 * most five times). The modern forms here are written out by hand from
 * NSClient++'s CheckSystem/CheckDisk sources, not produced by our
 * translation.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, mkdtempSync, realpathSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCheck, type CheckDefinition } from '../../../../src/checks/engine.js';
import {
  DISK_LEGACY,
  SYSTEM_LEGACY,
  registerLegacy,
  runLegacy,
} from '../../../../src/checks/legacy/legacy-commands.js';
import { cpuCheck } from '../../../../src/checks/system/cpu-checks.js';
import { CpuSampler } from '../../../../src/checks/system/cpu-sampler.js';
import { memoryCheck, uptimeCheck } from '../../../../src/checks/system/host-checks.js';
import { processCheck } from '../../../../src/checks/system/process-check.js';
import { hostSystemChecks } from '../../../../src/checks/system/host-system-checks.js';
import { drivesizeCheck } from '../../../../src/checks/disk/drivesize-check.js';
import { filesCheck } from '../../../../src/checks/disk/files-check.js';
import { createCore } from '../../../../src/core/core-impl.js';
import { moduleOfQuery } from '../../../../src/settings/model/module-table.js';
import type { QueryResult } from '../../../../src/core/result.js';
import { waitUntil } from '../../../helpers/wait-until.js';
import { inRange } from '../../../../src/in-range.js';

const sampler = new CpuSampler({ intervalMs: 1000 });
await sampler.start();
// Windows are labelled as asked once the sampler has history (a sample 1 s old); before that check_cpu answers 'total 500ms'.
await waitUntil(() => sampler.sampleCount >= 2, 10_000, 'a CPU sample 1 s old');
after(() => sampler.stop());
const defs: CheckDefinition[] = [
  cpuCheck(sampler),
  memoryCheck(),
  uptimeCheck(),
  processCheck(),
  drivesizeCheck(),
  filesCheck(() => [realpathSync(tmpdir())]),
  ...hostSystemChecks(),
];
const legacyOf = (name: string) => {
  const l = [...SYSTEM_LEGACY, ...DISK_LEGACY].find((x) => x.name.toLowerCase() === name.toLowerCase());
  assert.ok(l, name);
  const def = defs.find((d) => d.name === l.target);
  assert.ok(def, l.target);
  return { l, def };
};

const folder = mkdtempSync(join(tmpdir(), 'legacy-'));
after(() => rmSync(folder, { recursive: true, force: true }));
mkdirSync(join(folder, 'sub'));
writeFileSync(join(folder, 'a.log'), 'x'.repeat(3000));
writeFileSync(join(folder, 'b.log'), 'y');
writeFileSync(join(folder, 'sub', 'c.log'), 'z'.repeat(5000));
writeFileSync(join(folder, 'd.txt'), 'w');

const digits = (s: string): string => s.replace(/\d+(\.\d+)?/g, '#');
function same(a: QueryResult, b: QueryResult): string | undefined {
  if (a.result !== b.result) return `state ${a.result} vs ${b.result}: ${a.message} | ${b.message}`;
  if (digits(a.message) !== digits(b.message)) return `message ${a.message} | ${b.message}`;
  if (a.perf.length !== b.perf.length) return `perf ${JSON.stringify(a.perf)} | ${JSON.stringify(b.perf)}`;
  for (const [i, p] of a.perf.entries()) {
    const q = inRange(b.perf, i); // the lengths are equal (above)
    const { value: pv, ...prest } = p;
    const { value: qv, ...qrest } = q;
    if (JSON.stringify(prest) !== JSON.stringify(qrest)) return `perf ${JSON.stringify(p)} | ${JSON.stringify(q)}`;
    const close = Math.abs(Number(pv) - Number(qv)) <= Math.max(1, Math.abs(Number(qv)) * 0.02);
    if (!close) return `perf value ${p.alias}: ${pv} vs ${qv}`;
  }
  return undefined;
}

async function compare(legacyName: string, legacyArgs: string[], modernArgs: string[]): Promise<QueryResult> {
  const { l, def } = legacyOf(legacyName);
  let why: string | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    const legacy = await runLegacy(l, def, legacyArgs);
    const modern = await runCheck(def, modernArgs);
    why = same(legacy, modern);
    if (why === undefined) return legacy;
  }
  assert.fail(`${legacyName} ${legacyArgs.join(' ')} differs from ${def.name} ${modernArgs.join(' ')}: ${why}`);
}

void test('checkCPU: warn=/crit= and time= lists, and MaxWarn/MaxCrit with % and ShowAll, answer as check_cpu', async () => {
  const r = await compare(
    'checkCPU',
    ['warn=80', 'crit=90', 'time=5m', 'time=1m', 'time=30s'],
    [
      'warn=load >= 80',
      'crit=load >= 90',
      'detail-syntax=${time}: average load ${load}%',
      'time=5m',
      'time=1m',
      'time=30s',
    ],
  );
  assert.deepEqual(
    r.perf.map((p) => p.alias),
    ['total 5m', 'total 1m', 'total 30s'],
  );
  assert.deepEqual(
    r.perf.map((p) => [p.warning, p.critical]),
    [
      [80, 90],
      [80, 90],
      [80, 90],
    ],
  );
  const all = await compare(
    'checkcpu',
    ['MaxWarn=80%', 'MaxCrit=90%', 'ShowAll=long', 'time=5s'],
    [
      'warn=load >= 80',
      'crit=load >= 90',
      'filter=none',
      'top-syntax=${status}: CPU Load: ${list}',
      'ok-syntax=${status}: CPU Load: ${list}',
      'detail-syntax=${time}: average load ${load}%',
      'time=5s',
    ],
  );
  assert.match(all.message, /^\w+: CPU Load: 5s: average load \d+%/);
  assert.ok(all.perf.length > 1, 'ShowAll=long lists every core');
  // NSClient++'s own bound style: gt:95; 0.3.x's output switch nsclient is accepted and means nothing here.
  await compare(
    'CHECKCPU',
    ['MaxWarn=gt:95', 'time=5s', 'nsclient'],
    ['warn=load gt 95', 'detail-syntax=${time}: average load ${load}%', 'time=5s'],
  );
});

void test('checkMem: MaxWarn/MaxCrit in % on used, MinWarn on free, ShowAll and type=page as check_memory', async () => {
  const mem = ['detail-syntax=%(type): Total: %(size) - Used: %(used) (%(used_pct)%) - Free: %(free) (%(free_pct)%)'];
  const r = await compare(
    'checkMem',
    ['MaxWarn=80%', 'MaxCrit=90%', 'ShowAll', 'type=physical'],
    ['warn=used >= 80%', 'crit=used >= 90%', 'show-all', ...mem, 'type=physical'],
  );
  assert.match(r.message, /^OK: physical: Total: \S+ - Used: \S+ \(\d+%\) - Free: \S+ \(\d+%\)$/);
  await compare(
    'checkMem',
    ['maxWarn=1%', 'MinCrit=1%', 'type=physical', 'type=page'],
    ['warn=used >= 1%', 'crit=free <= 1%', ...mem, 'type=physical', 'type=swap'],
  );
  const bad = await runLegacy(legacyOf('checkMem').l, legacyOf('checkMem').def, ['type=gpu']);
  assert.equal(bad.result, 3);
  assert.match(bad.message, /checkMem: type=gpu is not one of/);
});

void test('checkUpTime: MinWarn=1d and MinCrit in NSClient++ units as check_uptime', async () => {
  const r = await compare('checkUpTime', ['MinWarn=1d', 'MinCrit=12h'], ['warn=uptime <= 1d', 'crit=uptime <= 12h']);
  assert.deepEqual(
    r.perf.map((p) => [p.alias, p.warning, p.critical]),
    [['uptime', '86400:', '43200:']],
  );
  await compare('checkUpTime', ['MinWarn=2s', 'ShowAll'], ['warn=uptime <= 2s', 'show-all']);
});

void test('checkProcState: named processes must run; with count bounds the count of running ones is judged', async (t) => {
  // A process of its own, under a name no other process has: node processes come and go (and
  // their memory moves) while the rest of the suite runs beside this test.
  const me = `lgcy${process.pid % 100000}`;
  copyFileSync('/bin/sleep', join(folder, me));
  chmodSync(join(folder, me), 0o755);
  const child = spawn(join(folder, me), ['600'], { stdio: 'ignore' });
  t.after(() => child.kill('SIGKILL'));
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  const r = await compare(
    'checkProcState',
    [me, 'no-such-process-x'],
    [
      `process=${me}`,
      'process=no-such-process-x',
      'detail-syntax=${name} : ${state}',
      `crit=( name = '${me}' and state != 'started' ) or ( name = 'no-such-process-x' and state != 'started' )`,
    ],
  );
  assert.equal(r.result, 2);
  assert.match(r.message, /no-such-process-x : stopped/);
  const c = await compare(
    'checkProcState',
    ['MaxWarnCount=1', 'MaxCritCount=5', me],
    [
      `process=${me}`,
      'detail-syntax=${name} : ${running}',
      `filter=( name = '${me}' and state = 'started' )`,
      'warn=count >= 1',
      'crit=count >= 5',
    ],
  );
  assert.equal(c.result, 1);
  assert.match(c.message, new RegExp(`${me} : \\d+`), 'the counted processes are named');
});

void test('checkServiceState: name and name=state (started is running) as check_service', async () => {
  await compare(
    'checkServiceState',
    ['ssh', 'cron=started', 'ShowAll'],
    [
      'detail-syntax=${name}: ${state}',
      'top-syntax=${status}: ${list}',
      'service=ssh',
      'service=cron',
      "crit=( name = 'ssh' and state != 'running' ) or ( name = 'cron' and state != 'running' )",
    ],
  );
  await compare(
    'checkServiceState',
    ['CheckAll', 'exclude=cron'],
    ['detail-syntax=${name}: ${state}', 'top-syntax=${status}: ${crit_list} delayed (${warn_list})', 'exclude=cron'],
  );
});

void test('CheckDriveSize: free/used bounds with suffixes, CheckAll, FilterType=FIXED, Drive=, ShowAll and perf-unit', async () => {
  const detail = 'detail-syntax=%(drive): Total: %(size) - Used: %(used) (%(used_pct)%) - Free: %(free) (%(free_pct)%)';
  await compare(
    'CheckDriveSize',
    ['MinWarnFree=10%', 'MinCritFree=5%', 'CheckAll', 'FilterType=FIXED'],
    ['warn=free <= 10%', 'crit=free <= 5%', 'drive=*', detail, "filter=type in ('fixed')"],
  );
  const r = await compare(
    'checkdrivesize',
    ['MaxWarn=1%', 'MaxCritUsed=100%', 'Drive=/', 'ShowAll', 'perf-unit=G'],
    ['warn=used >= 1%', 'crit=used >= 100%', 'perf-config=free(unit:G)used(unit:G)', detail, 'show-all', 'drive=/'],
  );
  assert.equal(r.result, 1);
  assert.match(r.message, /^WARNING: \/: Total: /);
  await compare('CheckDriveSize', ['/', 'MaxWarnUsed=99%'], ['warn=used >= 99%', detail, 'drive=/']);
  await compare('CheckDriveSize', ['CheckAllOthers', 'Drive=/'], ['drive=*', detail, "filter=not ( drive in ('/') )"]);
});

void test('CheckFiles: count bounds, syntax placeholders, max-dir-depth, and no file found is OK', async () => {
  const r = await compare(
    'CheckFiles',
    [
      `path=${folder}`,
      'pattern=*.log',
      'MaxWarn=2',
      'MaxCrit=10',
      'syntax=%filename%: %size%',
      'master-syntax=%count% files: %list%',
    ],
    [
      'warn=count >= 2',
      'crit=count >= 10',
      'pattern=*.log',
      'detail-syntax=%(name): %(size)',
      'top-syntax=%(count) files: %(list)',
      `path=${folder}`,
      'max-depth=64',
      'empty-state=ok',
    ],
  );
  assert.equal(r.result, 1);
  assert.match(r.message, /^3 files: /);
  const none = await compare(
    'CheckFiles',
    [`path=${folder}`, 'pattern=*.none', 'MaxCrit=1'],
    [
      'crit=count >= 1',
      'pattern=*.none',
      'detail-syntax=${name}',
      'top-syntax=${list}',
      `path=${folder}`,
      'max-depth=64',
      'empty-state=ok',
    ],
  );
  assert.equal(none.result, 0);
  await compare(
    'CheckFiles',
    [`path=${folder}`, 'max-dir-depth=1', 'crit=gt:3', 'filter=size > 10'],
    [
      'crit=count gt 3',
      'filter=size > 10',
      'detail-syntax=${name}',
      'top-syntax=${list}',
      `path=${folder}`,
      'max-depth=1',
      'empty-state=ok',
    ],
  );
});

void test('checkFile2 (0.3.x): filter+size and filter-written with count bounds as check_files', async () => {
  const r = await compare(
    'checkFile2',
    [`path=${folder}`, 'pattern=*.log', 'filter+size=>1k', 'MaxWarn=1', 'MaxCrit=5'],
    [
      'warn=count >= 1',
      'crit=count >= 5',
      'filter=( size > 1k )',
      'pattern=*.log',
      'detail-syntax=%(name)',
      'top-syntax=%(list)',
      `path=${folder}`,
      'max-depth=64',
      'empty-state=ok',
    ],
  );
  assert.equal(r.result, 1);
  assert.match(r.message, /a\.log/);
  assert.doesNotMatch(r.message, /b\.log/);
  await compare(
    'checkFile2',
    [`file=${folder}`, 'filter-written=>1d'],
    [
      'filter=not ( age > 1d )',
      'detail-syntax=%(name)',
      'top-syntax=%(list)',
      `path=${folder}`,
      'max-depth=64',
      'empty-state=ok',
    ],
  );
  const { l, def } = legacyOf('checkFile2');
  assert.match((await runLegacy(l, def, [`path=${folder}`])).message, /missing filter/);
});

void test('the legacy names are queries of their modules, case-insensitive, and in the module table (aliases naming them validate)', async () => {
  const core = createCore({
    settings: () => {
      throw new Error('no settings in this test');
    },
  });
  const undo = [
    registerLegacy(core, 'CheckSystem', SYSTEM_LEGACY, defs),
    registerLegacy(core, 'CheckDisk', DISK_LEGACY, defs),
  ];
  try {
    for (const l of [...SYSTEM_LEGACY, ...DISK_LEGACY]) {
      assert.equal(moduleOfQuery(l.name)?.name, SYSTEM_LEGACY.includes(l) ? 'CheckSystem' : 'CheckDisk', l.name);
      assert.ok(core.getQuery(l.name.toUpperCase()), l.name);
    }
    const r = await core.query('CHECKUPTIME', ['MinWarn=1s']);
    assert.equal(r.result, 0, r.message);
    assert.match(r.message, /^OK: uptime: /);
  } finally {
    for (const u of undo) u();
  }
});
