/**
 * Passive checks to Debian's NSCA daemon (nsca 2.10, /usr/sbin/nsca): the
 * agent, started as a process, runs schedules (Scheduler) and NSCAClient
 * sends their results; each daemon writes what it accepted to its command
 * file, which the test reads. One daemon per encryption method we offer,
 * each result checked field by field; a wrong password (the daemon drops
 * the packets: nothing arrives while a right one does); the daemon going
 * away (results queue, the agent logs the failure) and coming back (the
 * queued results arrive); output over the payload length (cut as
 * send_nsca cuts it) at 4096 and 512; a server that never answers (the
 * bounded queue drops its oldest results and counts them, nothing else
 * waits).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort, startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest } from '../helpers/web-client.js';
import { startNscaDaemon, type NscaDaemon } from '../helpers/nsca-daemon.js';
import { waitUntil } from '../helpers/wait-until.js';
import { inRange } from '../../src/in-range.js';

const METHODS: readonly [string, number][] = [
  ['none', 0],
  ['xor', 1],
  ['des', 2],
  ['3des', 3],
  ['aes', 14],
  ['rijndael192', 15],
  ['rijndael256', 16],
];
const PASSWORD = 'pass word!';
const daemons = new Map<string, NscaDaemon>();
let agent: AgentProcess;
const made = new Teardown();
after(() => made.close());

const LONG = 'y'.repeat(5000);

before(async () => {
  for (const [name, method] of METHODS) {
    const daemon = await startNscaDaemon({ method, password: PASSWORD });
    daemons.set(
      name,
      made.add(daemon, (d) => d.close()),
    );
  }
  // A port nothing listens on (free a moment ago).
  const closedPort = await freePort();
  const targets = METHODS.map(
    ([name]) =>
      `[/settings/NSCA/client/targets/${name}]\naddress = 127.0.0.1:${daemons.get(name)!.port}\nencryption = ${name}\npassword = ${PASSWORD}\npayload length = 4096\ntimeout = 5\n`,
  ).join('\n');
  const schedules = METHODS.map(
    ([name]) =>
      `[/settings/scheduler/schedules/${name}]\ncommand = check_warning "warn from ${name}|'load'=5;4;8"\nalias = svc-${name}\ntarget = ${name}\n`,
  ).join('\n');
  agent = await startAgent({
    ini: `[/settings/NSCA/client]
hostname = testhost
queue size = 5

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = web-pw

[/modules]
WEBServer = enabled
NSCAClient = enabled
Scheduler = enabled
CheckHelpers = enabled

[/settings/scheduler/schedules/default]
interval = 1s
randomness = 50%

${targets}
[/settings/NSCA/client/targets/wrong]
parent = aes
password = not the password

[/settings/NSCA/client/targets/nowhere]
address = 127.0.0.1:${closedPort}
encryption = none
retries = 0

[/settings/NSCA/client/targets/short]
parent = none
payload length = 512

${schedules}
[/settings/scheduler/schedules/wrong]
command = check_ok "from the wrong password"
alias = svc-wrong
target = wrong

[/settings/scheduler/schedules/lost]
command = check_ok "nobody listens"
target = nowhere
interval = 500ms

[/settings/scheduler/schedules/long]
command = check_ok ${LONG}
alias = svc-long
target = none

[/settings/scheduler/schedules/long512]
command = check_ok ${LONG}
alias = svc-long512
target = short

[/settings/scheduler/schedules/host]
command = check_critical "host down"
alias = host_check
target = xor
interval = 2s
report = critical

[/settings/NSCA/client/targets/nagios]
parent = none
host unreachable = 1

[/settings/scheduler/schedules/unreachable]
command = check_critical "host unreachable"
alias = host_check
source = farhost
target = nagios
interval = 2s

[/settings/scheduler/schedules/hostwarn]
command = check_warning "host degraded"
alias = host_check
source = warnhost
target = nagios
interval = 2s
`,
  });
  made.add(agent, (a) => a.stop());
});

const serviceLines = (d: NscaDaemon, service: string): string[] => d.lines().filter((l) => l.includes(`;${service};`));

for (const [name] of METHODS) {
  void test(`encryption ${name}: the daemon takes the result with host, service, status, output and perf data`, async () => {
    const d = daemons.get(name)!;
    await waitUntil(() => serviceLines(d, `svc-${name}`).length >= 2, 20_000, `two results through ${name}`);
    const line = inRange(serviceLines(d, `svc-${name}`), 0);
    assert.match(
      line,
      new RegExp(`^\\[\\d+\\] PROCESS_SERVICE_CHECK_RESULT;testhost;svc-${name};1;warn from ${name}\\|'load'=5;4;8$`),
    );
    const stamp = Number(/^\[(\d+)\]/.exec(line)![1]);
    assert.ok(Math.abs(stamp - Date.now() / 1000) < 60, `time stamp ${stamp}`);
  });
}

void test('a wrong password: the daemon drops every packet while the right password gets through', async () => {
  const d = daemons.get('aes')!;
  // Sent (written and closed) at least twice with the wrong password...
  await waitUntil(
    () => (agent.logs().match(/sent 1 result\(s\) to target wrong/g) ?? []).length >= 2,
    20_000,
    'two sends with the wrong password',
  );
  // ...and the right one arrived after them on the same daemon.
  const mark = serviceLines(d, 'svc-aes').length;
  await waitUntil(() => serviceLines(d, 'svc-aes').length > mark, 20_000, 'a result with the right password');
  assert.deepEqual(serviceLines(d, 'svc-wrong'), []);
});

void test('output over the payload length is cut to 4095 bytes (4096) and 511 (512, one result per connection)', async () => {
  const d = daemons.get('none')!;
  await waitUntil(
    () => serviceLines(d, 'svc-long').length >= 1 && serviceLines(d, 'svc-long512').length >= 1,
    20_000,
    'the long results',
  );
  // [time] PROCESS_SERVICE_CHECK_RESULT;host;service;code;output
  const output = (line: string): string => line.split(';').slice(4).join(';');
  assert.ok(output(inRange(serviceLines(d, 'svc-long'), 0)) === 'y'.repeat(4095), 'cut to 4095 bytes');
  assert.ok(output(inRange(serviceLines(d, 'svc-long512'), 0)) === 'y'.repeat(511), 'cut to 511 bytes');
});

void test('alias host_check is a host check result, CRITICAL sent as DOWN (1), and report = critical sends it', async () => {
  const d = daemons.get('xor')!;
  await waitUntil(() => d.lines().some((l) => l.includes('PROCESS_HOST_CHECK_RESULT')), 20_000, 'a host check result');
  assert.match(
    d.lines().find((l) => l.includes('PROCESS_HOST_CHECK_RESULT'))!,
    /^\[\d+\] PROCESS_HOST_CHECK_RESULT;testhost;1;host down$/,
  );
});

void test('host unreachable = 1: CRITICAL stays UNREACHABLE (2), WARNING is DOWN (1)', async () => {
  const d = daemons.get('none')!;
  const hostLine = (host: string): string | undefined =>
    d.lines().find((l) => l.includes(`PROCESS_HOST_CHECK_RESULT;${host};`));
  await waitUntil(
    () => hostLine('farhost') !== undefined && hostLine('warnhost') !== undefined,
    20_000,
    'both host results',
  );
  assert.match(hostLine('farhost')!, /^\[\d+\] PROCESS_HOST_CHECK_RESULT;farhost;2;host unreachable$/);
  assert.match(hostLine('warnhost')!, /^\[\d+\] PROCESS_HOST_CHECK_RESULT;warnhost;1;host degraded$/);
});

void test('the daemon going away: results queue and the failure is logged; back again: the queued results arrive', async () => {
  const d = daemons.get('3des')!;
  await d.stop();
  const mark = agent.mark();
  await agent.waitForLog(
    /sending to target 3des failed, next attempt in [\d.]+ s: NSCA to 127\.0\.0\.1:\d+: cannot connect/,
    20_000,
    mark,
  );
  // Let results pile up: at least three runs while the daemon is away.
  const before = serviceLines(d, 'svc-3des').length;
  await waitUntil(
    () =>
      (
        agent
          .logs()
          .slice(mark)
          .match(/schedule 3des|sending to target 3des failed/g) ?? []
      ).length >= 2,
    20_000,
    'a second failed attempt',
  );
  await d.start();
  await agent.waitForLog(/target 3des takes results again/, 90_000, mark);
  await waitUntil(() => serviceLines(d, 'svc-3des').length >= before + 2, 20_000, 'the queued results');
});

void test('a server that never answers: the queue keeps queue size results, drops the oldest and counts them; the checks go on', async () => {
  await agent.waitForLog(
    /AGENT_WARN_PASSIVE_DROPPED: target nowhere: the queue of unsent results is full \(5\); dropped the oldest \(\d+ dropped so far/,
    30_000,
  );
  // Meanwhile every other target kept receiving: the full queue blocked nothing.
  const d = daemons.get('none')!;
  const before = serviceLines(d, 'svc-none').length;
  await waitUntil(() => serviceLines(d, 'svc-none').length > before, 10_000, 'another result to a working target');
});

void test('GET /api/v1/metrics: results sent and dropped per module and target, and what is queued', async () => {
  const r = await webRequest(`https://127.0.0.1:${await webPort(agent)}/api/v1/metrics`, {
    user: 'root',
    password: 'web-pw',
  });
  assert.equal(r.status, 200);
  const value = (name: string, target: string): number =>
    Number(new RegExp(`^${name}\\{module="NSCAClient",target="${target}"\\} (\\d+)$`, 'm').exec(r.body)?.[1] ?? NaN);
  assert.ok(value('agent_passive_sent_total', 'none') >= 2, r.body);
  assert.ok(value('agent_passive_dropped_total', 'nowhere') >= 1);
  assert.ok(value('agent_passive_queued', 'nowhere') <= 5);
  assert.ok(Number(/^agent_schedule_submitted_total (\d+)$/m.exec(r.body)?.[1]) >= 10);
});
