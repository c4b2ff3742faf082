/**
 * The Scheduler as a user runs it: the agent started as a process, its
 * schedules read back over GET /api/v1/schedules (privilege
 * schedules.list), edits written to the settings file and hot-applied.
 * Runs are counted twice: by the API and by the scripts they run, which
 * append a line to a file per run.
 *
 * - jitter spreads the first runs over randomness × interval;
 * - an edited interval moves the next run to the last run's start plus the
 *   new interval (a longer one: exactly that; a shorter one already passed:
 *   one run at once, then on the new grid): no run skipped, none doubled;
 * - a removed schedule stops (its script runs no more while another
 *   schedule keeps running);
 * - a run due while the previous one still runs is skipped and counted,
 *   and the script never runs twice at once.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replaceFile, startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest } from '../helpers/web-client.js';
import { waitUntil } from '../helpers/wait-until.js';

interface Row {
  name: string;
  command: string;
  interval_s: number;
  last_run: string | null;
  next_run: string | null;
  last_status: string | null;
  runs: number;
  skipped: number;
  running: boolean;
}

const made = new Teardown();
after(() => made.close());
const marks = mkdtempSync(join(tmpdir(), 'scheduler-marks-'));
made.defer(() => rmSync(marks, { recursive: true, force: true }));
const lines = (name: string): number =>
  existsSync(join(marks, name))
    ? readFileSync(join(marks, name), 'utf8')
        .split('\n')
        .filter((l) => l !== '').length
    : 0;
const tick = (name: string, extra = ''): string =>
  `/bin/sh -c "${extra}echo x >> ${join(marks, name)}; echo ran ${name}"`;

const jitter = Array.from(
  { length: 20 },
  (_, i) =>
    `[/settings/scheduler/schedules/spread${i}]\ncommand = check_ok spread\ninterval = 60s\nrandomness = 100%\nchannel = drop\n`,
).join('\n');

const settings = (edit: {
  editInterval: string;
  shrinkInterval: string;
  gone: boolean;
}): string => `[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = root-pw

[/settings/web/users/blind]
password = blind-pw
role = client

[/settings/external scripts/scripts]
tick_edit = ${tick('edit')}
tick_shrink = ${tick('shrink')}
tick_gone = ${tick('gone')}
tick_clock = ${tick('clock')}
tick_slow = ${tick('slow', 'sleep 2.5; ')}

[/settings/scheduler/schedules/default]
channel = drop
randomness = 0%

[/settings/scheduler/schedules/edit]
command = tick_edit
interval = ${edit.editInterval}

[/settings/scheduler/schedules/shrink]
command = tick_shrink
interval = ${edit.shrinkInterval}
${edit.gone ? '\n[/settings/scheduler/schedules/gone]\ncommand = tick_gone\ninterval = 1s\n' : ''}
[/settings/scheduler/schedules/clock]
command = tick_clock
interval = 1s

[/settings/scheduler/schedules/slow]
command = tick_slow
interval = 1s

${jitter}
[/modules]
WEBServer = enabled
CheckHelpers = enabled
CheckExternalScripts = enabled
Scheduler = enabled
`;

let agent: AgentProcess;
let base = '';
let started = 0;

before(async () => {
  started = Date.now();
  agent = made.add(await startAgent({ ini: settings({ editInterval: '4s', shrinkInterval: '6s', gone: true }) }), (a) =>
    a.stop(),
  );
  base = `https://127.0.0.1:${await webPort(agent)}`;
});

const schedules = async (): Promise<Map<string, Row>> => {
  const r = await webRequest(`${base}/api/v1/schedules`, { user: 'root', password: 'root-pw' });
  assert.equal(r.status, 200, r.body);
  return new Map(r.json<Row[]>().map((row) => [row.name, row]));
};
const row = async (name: string): Promise<Row> => (await schedules()).get(name)!;

const applyEdit = async (edit: Parameters<typeof settings>[0]): Promise<void> => {
  const mark = agent.mark();
  replaceFile(agent.settingsFile, settings(edit));
  await agent.waitForLog(/Scheduler: apply/, 10_000, mark);
};

void test('GET /api/v1/schedules lists every schedule with its query, interval, last and next run; it needs schedules.list', async () => {
  const all = await schedules();
  assert.equal(all.size, 25);
  const clock = all.get('clock')!;
  assert.equal(clock.command, 'tick_clock');
  assert.equal(clock.interval_s, 1);
  assert.ok(clock.next_run !== null && Date.parse(clock.next_run) >= started);
  await waitUntil(async () => (await row('clock')).last_status === 'OK', 10_000, 'a first run of clock');
  const denied = await webRequest(`${base}/api/v1/schedules`, { user: 'blind', password: 'blind-pw' });
  assert.equal(denied.status, 403);
});

void test('jitter: first runs of schedules loaded together spread over randomness × interval', async () => {
  const next = [...(await schedules()).values()]
    .filter((r) => r.name.startsWith('spread'))
    .map((r) => Date.parse(r.next_run!));
  assert.equal(next.length, 20);
  for (const t of next)
    assert.ok(t >= started && t <= Date.now() + 60_000, `first run within the interval: ${new Date(t).toISOString()}`);
  assert.ok(
    Math.max(...next) - Math.min(...next) > 15_000,
    `spread over more than 15 s: ${Math.max(...next) - Math.min(...next)} ms`,
  );
  assert.ok(new Set(next).size >= 18, 'hardly two at the same millisecond');
});

void test('an edited interval: longer moves the next run to last run + new interval; shorter and already passed runs once at once; none skipped or doubled', async () => {
  await waitUntil(
    async () => (await row('edit')).runs >= 1 && (await row('shrink')).runs >= 1 && !(await row('shrink')).running,
    20_000,
    'first runs of edit and shrink',
  );
  // The first run of shrink was at about start; 2 s later its old next run (+6 s) is still ahead and the new interval (1 s) has passed.
  await waitUntil(
    async () => Date.now() - Date.parse((await row('shrink')).last_run!) > 1500,
    10_000,
    'shrink 1.5 s past its last run',
  );
  const editBefore = await row('edit');
  const shrinkBefore = await row('shrink');
  const shrinkLines = lines('shrink');
  await applyEdit({ editInterval: '9s', shrinkInterval: '1s', gone: true });
  const editAfter = await row('edit');
  if (editAfter.runs === editBefore.runs) {
    // No run in between: the next run is the last run's start plus the new interval, to the millisecond.
    assert.equal(Date.parse(editAfter.next_run!), Date.parse(editAfter.last_run!) + 9000);
  }
  assert.equal(editAfter.interval_s, 9);
  // shrink: one run now (its new grid point had passed), then every second; never two runs in one interval.
  await waitUntil(() => lines('shrink') >= shrinkLines + 1, 3000, 'the run of shrink at once');
  const firstAfter = await row('shrink');
  assert.ok(
    Date.parse(firstAfter.last_run!) - Date.parse(shrinkBefore.last_run!) < 6000,
    'ran before the old interval was over',
  );
  await waitUntil(async () => (await row('shrink')).runs >= firstAfter.runs + 3, 10_000, 'three more runs of shrink');
  const later = await row('shrink');
  const elapsed = Date.parse(later.last_run!) - Date.parse(firstAfter.last_run!);
  assert.ok(
    elapsed >= (later.runs - firstAfter.runs - 1) * 1000 - 50,
    `no doubled run: ${later.runs - firstAfter.runs} runs in ${elapsed} ms`,
  );
  const now = await row('shrink');
  assert.ok(
    lines('shrink') >= now.runs && lines('shrink') <= now.runs + 1,
    `every run ran the script once: ${lines('shrink')} lines, ${now.runs} runs`,
  );
});

void test('a removed schedule stops: it is no longer listed and its script runs no more', async () => {
  await waitUntil(() => lines('gone') >= 1, 10_000, 'a run of gone');
  await applyEdit({ editInterval: '9s', shrinkInterval: '1s', gone: false });
  assert.equal((await schedules()).has('gone'), false);
  const gone = lines('gone');
  const clock = lines('clock');
  await waitUntil(() => lines('clock') >= clock + 3, 10_000, 'three more runs of clock');
  assert.equal(lines('gone'), gone);
});

void test('a run due while the previous one still runs is skipped and counted; the script never runs twice at once', async () => {
  await waitUntil(async () => (await row('slow')).skipped >= 3, 20_000, 'skipped runs of slow');
  const slow = await row('slow');
  assert.ok(slow.runs >= 1);
  // Every finished run wrote one line; a run under way may have written its line already.
  assert.ok(
    lines('slow') >= slow.runs && lines('slow') <= slow.runs + 1,
    `${lines('slow')} lines for ${slow.runs} runs`,
  );
  assert.ok(
    slow.skipped >= slow.runs,
    `about two of three due runs skipped: ${slow.skipped} skipped, ${slow.runs} runs`,
  );
});

void test('GET /api/v1/metrics counts schedules, runs, skipped runs and results nobody listened to (channel drop submits nothing)', async () => {
  const r = await webRequest(`${base}/api/v1/metrics`, { user: 'root', password: 'root-pw' });
  assert.equal(r.status, 200);
  const value = (name: string): number => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(r.body)?.[1] ?? NaN);
  assert.equal(value('agent_schedules'), 24);
  assert.ok(value('agent_schedule_runs_total') >= 10, r.body);
  assert.ok(value('agent_schedule_skipped_total') >= 3);
  assert.equal(value('agent_schedule_submitted_total'), 0);
  assert.equal(value('agent_schedule_unsent_total'), 0);
});
