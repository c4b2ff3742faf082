/**
 * Passive checks to a real Icinga 2 (a private instance started by the
 * test: API feature, an ApiUser, a host and passive service objects): the
 * agent, started as a process, runs schedules and IcingaClient posts their
 * results to /v1/actions/process-check-result over TLS verified against
 * Icinga's CA. Each object's state is read back over Icinga's API: state,
 * output, performance data, check_source. A target trusting another CA
 * sends nothing (the failure is logged); an object Icinga does not know is
 * refused for good (logged, not retried). A wrong password (401) and a host
 * Icinga does not know (Icinga 2.13: 500 with no result) count once, as rejected and not as sent, with
 * Icinga's status and message as the queue's last error (icinga_queue).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { webRequest } from '../helpers/web-client.js';
import { API_PASSWORD, API_USER, startIcingaDaemon, type IcingaDaemon } from '../helpers/icinga-daemon.js';
import { Teardown } from '../helpers/teardown.js';
import { waitUntil } from '../helpers/wait-until.js';

let icinga: IcingaDaemon;
let agent: AgentProcess;
const made = new Teardown();
after(() => made.close());

before(async () => {
  icinga = made.add(
    await startIcingaDaemon({
      hosts: ['testhost'],
      services: [
        ['testhost', 'passive'],
        ['testhost', 'untrusted'],
      ],
    }),
    (d) => d.stop(),
  );
  agent = await startAgent({
    ini: `[/settings/icinga/client/targets/default]
address = localhost:${icinga.port}
username = ${API_USER}
password = ${API_PASSWORD}
ca = ${icinga.ca}
check source = agent-under-test
timeout = 5

[/settings/icinga/client/targets/untrusted]
ca = ${icinga.otherCa}

[/settings/icinga/client/targets/wrongpw]
password = not the password

[/settings/icinga/client/targets/ghost]

[/settings/scheduler/schedules/default]
channel = ICINGA
interval = 1s

[/settings/scheduler/schedules/passive]
command = check_warning "disk getting full|'used'=81%;80;90;0;100"

[/settings/scheduler/schedules/host_check]
command = check_critical "host is down"

[/settings/scheduler/schedules/untrusted]
command = check_ok "never arrives"
target = untrusted

[/settings/scheduler/schedules/nosuch]
command = check_ok "no such service"

[/settings/scheduler/schedules/badpw]
command = check_ok "wrong password"
target = wrongpw

[/settings/scheduler/schedules/ghosthost]
command = check_critical "no such host"
alias = host_check
source = nosuchhost
target = ghost

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = web-pw

[/settings/icinga/client]
hostname = testhost

[/modules]
WEBServer = enabled
CheckHelpers = enabled
Scheduler = enabled
IcingaClient = enabled
`,
  });
  made.add(agent, (a) => a.stop());
});

const lastResult = async (path: string): Promise<Record<string, unknown> | undefined> => {
  const attrs = await icinga.object(path);
  return (attrs?.last_check_result as Record<string, unknown> | null | undefined) ?? undefined;
};

void test('a service result: state, output, perf data and check_source as Icinga 2 records them', async () => {
  await waitUntil(
    async () => (await lastResult('services/testhost!passive')) !== undefined,
    30_000,
    'a check result for testhost!passive',
  );
  const attrs = (await icinga.object('services/testhost!passive'))!;
  assert.equal(attrs.state, 1);
  const r = attrs.last_check_result as Record<string, unknown>;
  assert.equal(r.state, 1);
  assert.equal(r.output, 'disk getting full');
  assert.deepEqual(r.performance_data, ["'used'=81%;80;90;0;100"]);
  assert.equal(r.check_source, 'agent-under-test');
  assert.equal(r.active, false);
});

void test('alias host_check: a host result, CRITICAL mapped to DOWN', async () => {
  await waitUntil(
    async () => (await lastResult('hosts/testhost')) !== undefined,
    30_000,
    'a check result for testhost',
  );
  const attrs = (await icinga.object('hosts/testhost'))!;
  assert.equal(attrs.state, 1);
  assert.equal((attrs.last_check_result as Record<string, unknown>).output, 'host is down');
});

void test('a certificate the target does not trust: nothing is sent, the failure is logged and retried', async () => {
  await agent.waitForLog(
    /sending to target untrusted failed, next attempt in [\d.]+ s: Icinga 2 at localhost:\d+: .*(certificate|self.signed|issuer)/i,
    30_000,
  );
  // The trusted results kept arriving meanwhile; the untrusted service never got one.
  const before = (await lastResult('services/testhost!passive'))!.execution_end as number;
  await waitUntil(
    async () => ((await lastResult('services/testhost!passive'))!.execution_end as number) > before,
    30_000,
    'a newer trusted result',
  );
  assert.equal(await lastResult('services/testhost!untrusted'), undefined);
});

void test('an object Icinga 2 does not know is refused for good: logged, not retried', async () => {
  await agent.waitForLog(
    /1 result\(s\) for target default refused: Icinga 2 at localhost:\d+: no service testhost!nosuch/,
    30_000,
  );
});

interface QueueRow {
  target: string;
  queued: number;
  sent: number;
  rejected: number;
  failures: number;
  last_error: string;
}

/** The icinga_queue query of the running agent, over its web API. */
async function queues(): Promise<QueueRow[]> {
  const r = await webRequest(`https://127.0.0.1:${await webPort(agent)}/api/v1/queries/icinga_queue/commands/execute`, {
    user: 'root',
    password: 'web-pw',
    timeoutMs: 20_000,
  });
  assert.equal(r.status, 200, r.body);
  const body = r.json<{ lines: { message: string }[] }>();
  return JSON.parse(body.lines[0]?.message ?? '[]') as QueueRow[];
}

void test('a wrong password (401) and a host Icinga does not know (500, no object): counted once, as rejected, with the status and message', async () => {
  let rows: QueueRow[] = [];
  const row = (name: string): QueueRow | undefined => rows.find((q) => q.target === name);
  await waitUntil(
    async () => {
      rows = await queues();
      return (row('wrongpw')?.rejected ?? 0) >= 2 && (row('ghost')?.rejected ?? 0) >= 2;
    },
    30_000,
    'two refused results for each of wrongpw and ghost',
  );
  const wrong = row('wrongpw')!;
  assert.equal(wrong.sent, 0, JSON.stringify(wrong));
  assert.equal(wrong.failures, 0, JSON.stringify(wrong));
  assert.match(wrong.last_error, /Icinga 2 at localhost:\d+: HTTP 401: \S/, JSON.stringify(wrong));
  const ghost = row('ghost')!;
  assert.equal(ghost.sent, 0, JSON.stringify(ghost));
  assert.equal(ghost.failures, 0, JSON.stringify(ghost));
  // Icinga 2.13 answers a filter that matches no object with 500 and an empty result list, not 404.
  assert.match(
    ghost.last_error,
    /Icinga 2 at localhost:\d+: no host nosuchhost \(HTTP 500, no object matched\)/,
    JSON.stringify(ghost),
  );
  // On the default target the results Icinga took count as sent, the unknown service's as rejected.
  const good = row('default')!;
  assert.ok(good.sent >= 1 && good.rejected >= 1, JSON.stringify(good));
  assert.match(good.last_error, /no service testhost!nosuch/, JSON.stringify(good));
});
