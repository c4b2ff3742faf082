/**
 * The Scheduler's parsing and its rule for edits, without waiting for
 * timers: durations and report lists as NSClient++ writes them, the
 * definition of a schedule (command, alias, defaults), and where an edited
 * interval puts the next run. Timing with real timers is tested with the
 * agent as a process (test/integration/scheduler.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { definitionOf, parseDuration, parseReport, ScheduleTable } from '../../../src/modules/scheduler/schedules.js';
import { loadSettingsText } from '../../../src/settings/model/load.js';
import { startLocalCore } from '../../../src/cli/local-core.js';
import { inRange } from '../../../src/in-range.js';

void test('durations: a bare number is seconds; ms, s, m, h, d, w', () => {
  assert.equal(parseDuration('300'), 300_000);
  assert.equal(parseDuration('30s'), 30_000);
  assert.equal(parseDuration(' 5m '), 300_000);
  assert.equal(parseDuration('1.5h'), 5_400_000);
  assert.equal(parseDuration('250ms'), 250);
  assert.ok(Number.isNaN(parseDuration('soon')));
});

void test('report: all, or a list of ok, warning (warn), critical (crit), unknown', () => {
  assert.deepEqual([...parseReport('all')].sort(), [0, 1, 2, 3]);
  assert.deepEqual([...parseReport('warning, crit,unknown')].sort(), [1, 2, 3]);
  assert.deepEqual([...parseReport('ok')], [0]);
});

void test('definition: command and arguments, alias defaulting to the name, an empty command running the alias', () => {
  const d = definitionOf('cpu', {
    command: 'check_cpu "warn=load > 80"',
    interval: '1m',
    randomness: '10%',
    channel: 'NSCA',
    report: 'all',
    alias: '',
    target: '',
    source: '',
  });
  assert.ok(!('problem' in d));
  assert.equal(d.command, 'check_cpu');
  assert.deepEqual(d.args, ['warn=load > 80']);
  assert.equal(d.alias, 'cpu');
  assert.equal(d.intervalMs, 60_000);
  assert.equal(d.randomness, 0.1);
  const byAlias = definitionOf('x', { command: '', alias: 'check_ok', interval: '5m' });
  assert.ok(!('problem' in byAlias) && byAlias.command === 'check_ok' && byAlias.alias === 'check_ok');
  assert.deepEqual(definitionOf('bad', { command: 'check_ok "open', interval: '5m' }), {
    problem: 'unclosed " in: check_ok "open',
  });
});

void test('an edited interval: last run + new interval, or now when that has passed; other edits keep the next run', () => {
  const table = new ScheduleTable(async () => {}, 1);
  const base = definitionOf('s', { command: 'check_ok', interval: '60s', randomness: '0%' });
  assert.ok(!('problem' in base));
  const now = Date.now();
  table.add(base, now);
  const state = inRange(table.list(), 0);
  state.lastStart = now - 10_000;
  table.update({ ...base, intervalMs: 120_000 }, now);
  assert.equal(state.nextRun, now - 10_000 + 120_000, 'longer: last run + new interval');
  table.update({ ...base, intervalMs: 5_000 }, now);
  assert.equal(state.nextRun, now, 'shorter and passed: now');
  const before = state.nextRun;
  table.update({ ...base, intervalMs: 5_000, channel: 'ICINGA' }, now + 1);
  assert.equal(state.nextRun, before, 'same interval: timing kept');
  assert.equal(state.def.channel, 'ICINGA');
  table.clear();
  assert.equal(table.list().length, 0);
});

void test('schedules follow the object model: one-liners, default, a template as parent, own keys winning', () => {
  const loaded = loadSettingsText(
    `[/settings/scheduler/schedules/default]\ninterval = 1m\nchannel = ICINGA\n\n[/settings/scheduler/schedules/linux]\nis template = true\nreport = critical\ninterval = 2m\n\n[/settings/scheduler/schedules]\ncpu = check_cpu\n\n[/settings/scheduler/schedules/disk]\nparent = linux\ncommand = check_drivesize\ninterval = 30s\n`,
    'schedules.ini',
  );
  assert.ok(loaded.ok, JSON.stringify(loaded.problems));
  const s = loaded.snapshot.schedules;
  assert.equal(s.get('cpu')?.values.command, 'check_cpu');
  assert.equal(s.get('cpu')?.values.channel, 'ICINGA');
  assert.equal(s.get('cpu')?.values.interval, '1m');
  assert.equal(s.get('linux')?.isTemplate, true);
  assert.equal(s.get('disk')?.values.report, 'critical');
  assert.equal(s.get('disk')?.values.interval, '30s');
  assert.equal(s.get('disk')?.values.channel, 'ICINGA');
});

void test('a one-shot core (config-agent query, config-agent client) does not start the Scheduler, only the modules that answer queries', async () => {
  const loaded = loadSettingsText(
    '[/modules]\nCheckHelpers = enabled\nScheduler = enabled\n\n[/settings/scheduler/schedules]\nx = check_ok\n',
    'one-shot.ini',
  );
  assert.ok(loaded.ok);
  const local = await startLocalCore(loaded.snapshot);
  try {
    assert.ok(local.core.getQuery('check_ok'));
    assert.equal(local.core.getQuery('scheduler_list'), undefined);
  } finally {
    await local.stop();
  }
});
