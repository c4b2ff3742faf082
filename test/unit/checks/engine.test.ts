import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCheck, type CheckDefinition } from '../../../src/checks/engine.js';
import type { Values } from '../../../src/checks/expression/evaluate.js';
import { toNagios } from '../../../src/core/result.js';

/** A check over fixed items, shaped like check_drivesize. */
function disks(items: Values[]): CheckDefinition {
  return {
    name: 'check_test',
    title: 'test',
    description: 'test check',
    vars: {
      drive: { kind: 'string', description: '' },
      size: { kind: 'size', description: '' },
      used: { kind: 'size', description: '', pct: 'used_pct', of: 'size' },
      used_pct: { kind: 'percent', description: '' },
      load: { kind: 'percent', description: '' },
    },
    defaults: {
      warning: 'used > 80%',
      critical: 'used > 90%',
      topSyntax: '${status}: ${problem_list}',
      okSyntax: '%(status): All %(count) ok',
      detailSyntax: '%(drive): %(used_pct)%',
      emptySyntax: '%(status): nothing',
      emptyState: 'unknown',
    },
    async collect() {
      return items;
    },
    perf: (item) => [
      {
        object: String(item.drive),
        key: 'used',
        alias: `${item.drive} used`,
        minimum: 0,
        maximum: item.size as number,
      },
      { object: String(item.drive), key: 'used_pct', alias: `${item.drive} used %`, minimum: 0, maximum: 100 },
    ],
  };
}

const GB = 1024 ** 3;
const disk = (drive: string, pct: number): Values => ({
  drive,
  size: 100 * GB,
  used: pct * GB,
  used_pct: pct,
  load: pct,
});

void test('default thresholds: at, just under and just over the limits', async () => {
  const cases: [number, number][] = [
    [79.99, 0],
    [80, 0],
    [80.01, 1],
    [89.99, 1],
    [90, 1],
    [90.01, 2],
  ];
  for (const [pct, want] of cases) {
    const r = await runCheck(disks([disk('/', pct)]), []);
    assert.equal(r.result, want, `used ${pct}%: ${r.message}`);
  }
});

void test('messages: ok-syntax when OK, problem list otherwise, show-all lists everything', async () => {
  const def = disks([disk('/', 10), disk('/var', 85), disk('/srv', 95)]);
  assert.equal((await runCheck(disks([disk('/', 10)]), [])).message, 'OK: All 1 ok');
  const r = await runCheck(def, []);
  assert.equal(r.result, 2);
  assert.equal(r.message, 'CRITICAL: /var: 85%, /srv: 95%');
  assert.equal((await runCheck(disks([disk('/', 10)]), ['show-all'])).message, 'OK: /: 10%');
  assert.equal(
    (
      await runCheck(def, [
        'top-syntax=%(crit_count)/%(warn_count)/%(ok_count) of %(total): %(crit_list)',
        'list-separator=; ',
      ])
    ).message,
    '1/1/1 of 3: /srv: 95%',
  );
  assert.equal(
    (await runCheck(def, ['detail-syntax=${drive}', 'top-syntax=${list}', 'list-separator=|'])).message,
    '/|/var|/srv',
  );
});

void test('filter, warn/crit overrides, word operators, none and ok', async () => {
  const def = disks([disk('/', 10), disk('/var', 85), disk('/srv', 95)]);
  assert.equal((await runCheck(def, ["filter=drive = '/'"])).result, 0);
  assert.equal((await runCheck(def, ["filter=drive in ('/', '/var')"])).result, 1);
  assert.equal((await runCheck(def, ['warn=used gt 5%', 'crit=none'])).result, 1);
  assert.equal((await runCheck(def, ['warning=none', 'critical=none'])).result, 0);
  assert.equal((await runCheck(def, ['crit=used ge 95g'])).message, 'CRITICAL: /var: 85%, /srv: 95%');
  assert.equal((await runCheck(def, ["ok=drive = '/srv'"])).result, 1, 'ok= wins over critical');
  assert.equal((await runCheck(def, ['--crit=used > 99%', '--warn=used > 99%'])).result, 0, 'leading -- is accepted');
  assert.equal((await runCheck(def, ['crit=count > 2', 'warn=none'])).result, 2, 'summary expression');
  assert.equal((await runCheck(def, ['crit=count > 3', 'warn=none'])).result, 0);
});

void test('empty results follow empty-state and empty-syntax', async () => {
  const none = disks([]);
  let r = await runCheck(none, []);
  assert.deepEqual([r.result, r.message], [3, 'UNKNOWN: nothing']);
  r = await runCheck(disks([disk('/', 95)]), [
    "filter=drive = 'x'",
    'empty-state=ok',
    'empty-syntax=%(status): none here',
  ]);
  assert.deepEqual([r.result, r.message], [0, 'OK: none here']);
  r = await runCheck(none, ['empty-state=ignored']);
  assert.equal(r.result, 0);
});

void test('perf data carries thresholds in the unit of each metric, perf-config restyles it', async () => {
  const def = disks([disk('/', 50)]);
  assert.equal(toNagios(await runCheck(def, [])), "OK: All 1 ok|'/ used'=50GB;80;90;0;100 '/ used %'=50%;80;90;0;100");
  assert.equal(
    toNagios(await runCheck(def, ['perf-config=used(unit:MB) used_pct(ignored:true)'])),
    "OK: All 1 ok|'/ used'=51200MB;81920;92160;0;102400",
  );
  assert.equal(
    toNagios(await runCheck(def, ['perf-config=*(unit:TB; prefix:disk_) /(suffix:!)'])).split('|')[1],
    "'disk_/ used!'=0.049TB;0.078;0.088;0;0.098 'disk_/ used %!'=50%;80;90;0;100",
  );
  assert.equal(
    toNagios(await runCheck(def, ['warn=used_pct > 70', 'crit=used > 95g'])).split('|')[1],
    "'/ used'=50GB;70;95;0;100 '/ used %'=50%;70;95;0;100",
  );
});

void test('bad input answers UNKNOWN with the position, never throws', async () => {
  const def = disks([disk('/', 50)]);
  const cases: [string[], RegExp][] = [
    [['warn=used >> 80'], /^invalid warning expression "used >> 80" at column 7: expected a value/],
    [['crit=usd > 80'], /^invalid critical expression "usd > 80" at column 1: unknown name 'usd'/],
    [["filter=drive = 'x"], /^invalid filter expression .* at column 9: string starting here has no closing '/],
    [['warn=used > 80x'], /column 8: suffix 'x'/],
    [['nosuch=1'], /unknown argument 'nosuch'/],
    [['warn'], /argument 'warn' needs a value/],
    [['detail-syntax=%(nope)'], /unknown name 'nope' in detail-syntax/],
    [['top-syntax=${drive}'], /unknown name 'drive' in top-syntax/],
    [['empty-state=maybe'], /empty-state=maybe/],
    [['perf-config=used(colour:red)'], /perf-config: unknown key 'colour'/],
    [['perf-config=used(unit:parsec)'], /unit 'parsec' does not fit the size/],
  ];
  for (const [args, re] of cases) {
    const r = await runCheck(def, args);
    assert.equal(r.result, 3, args.join(' '));
    assert.match(r.message, re, args.join(' '));
    assert.deepEqual(r.perf, []);
  }
  const failing: CheckDefinition = { ...def, collect: async () => Promise.reject(new Error('disk on fire')) };
  const r = await runCheck(failing, []);
  assert.deepEqual([r.result, r.message], [3, 'check_test failed: disk on fire']);
});

void test('help lists options, names and defaults', async () => {
  const r = await runCheck(disks([]), ['help']);
  assert.equal(r.result, 0);
  assert.match(r.message, /warning=used > 80%/);
  assert.match(r.message, /used_pct \(percent\)/);
  assert.match(r.message, /perf-config=/);
});

void test('a problem of the whole (warn=count > 0) names the items it counted instead of an empty problem list', async () => {
  const def = disks([disk('/var', 10), disk('/srv', 20)]);
  const r = await runCheck(def, ['warn=count > 0', 'crit=none']);
  assert.equal(r.result, 1);
  assert.match(r.message, /\/var: 10%, \/srv: 20%/);
  const itemLevel = await runCheck(def, ['warn=used > 15%', 'crit=count > 5']);
  assert.equal(itemLevel.result, 1);
  assert.doesNotMatch(itemLevel.message, /\/var/, 'an item-level problem lists only its items');
});
