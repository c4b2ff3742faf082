/**
 * Passive checks to a real Icinga 2 (a private instance started by the
 * test: API feature, an ApiUser, a host and passive service objects): the
 * agent, started as a process, runs schedules and IcingaClient posts their
 * results to /v1/actions/process-check-result over TLS verified against
 * Icinga's CA. Each object's state is read back over Icinga's API: state,
 * output, performance data, check_source. A target trusting another CA
 * sends nothing (the failure is logged); an object Icinga does not know is
 * refused for good (logged, not retried).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgent, type AgentProcess } from '../helpers/agent-process.js';
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

[/settings/icinga/client]
hostname = testhost

[/modules]
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
