/**
 * Host check results over NSCA into Icinga 2, the way an Icinga 2 server
 * takes NSCA: Debian's nsca daemon writes each result as an external
 * command (PROCESS_HOST_CHECK_RESULT) into Icinga's command pipe (the
 * ExternalCommandListener feature of a private Icinga 2 instance), and the
 * host's state is read back over Icinga's API. A CRITICAL host check is sent
 * as DOWN (1), which Icinga takes; with `host unreachable = 1` the same
 * result goes as 2, which Icinga refuses for a host (`Invalid status code:
 * 2`, in its log) and the host keeps no result: why 1 is the default.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { startIcingaDaemon, type IcingaDaemon } from '../helpers/icinga-daemon.js';
import { startNscaDaemon } from '../helpers/nsca-daemon.js';
import { Teardown } from '../helpers/teardown.js';
import { waitUntil } from '../helpers/wait-until.js';

const PASSWORD = 'nsca secret';
let icinga: IcingaDaemon;
let agent: AgentProcess;
const made = new Teardown();
after(() => made.close());

before(async () => {
  icinga = made.add(
    await startIcingaDaemon({ hosts: ['downhost', 'nagioshost'], services: [], commandPipe: true }),
    (d) => d.stop(),
  );
  const nsca = made.add(
    await startNscaDaemon({ method: 14, password: PASSWORD, commandFile: icinga.commandPipe }),
    (d) => d.close(),
  );
  agent = made.add(
    await startAgent({
      ini: `[/settings/NSCA/client/targets/default]
address = 127.0.0.1:${nsca.port}
encryption = aes
password = ${PASSWORD}
payload length = 4096
timeout = 5

[/settings/NSCA/client/targets/nagios]
host unreachable = 1

[/settings/scheduler/schedules/default]
interval = 1s
alias = host_check
command = check_critical "host is down"

[/settings/scheduler/schedules/down]
source = downhost

[/settings/scheduler/schedules/unreachable]
source = nagioshost
target = nagios

[/modules]
CheckHelpers = enabled
Scheduler = enabled
NSCAClient = enabled
`,
    }),
    (a) => a.stop(),
  );
});

void test('a CRITICAL host check over NSCA reaches Icinga 2 as DOWN (1), and Icinga takes it', async () => {
  // The result and the state it sets: a host with no result yet may read either state.
  const downhost = async (): Promise<{ state?: unknown; output?: unknown }> => {
    const attrs = await icinga.object('hosts/downhost');
    const r = attrs?.last_check_result as Record<string, unknown> | null | undefined;
    return { state: attrs?.state, output: r?.output };
  };
  await waitUntil(
    async () => (await downhost()).output === 'host is down' && (await downhost()).state === 1,
    30_000,
    'downhost DOWN in Icinga 2 with our result',
  );
  const r = (await icinga.object('hosts/downhost'))!.last_check_result as Record<string, unknown>;
  assert.equal(r.active, false);
  assert.match(icinga.log(), /PROCESS_HOST_CHECK_RESULT;downhost;1;host is down/);
  assert.doesNotMatch(icinga.log(), /Invalid status code: 2.*downhost|downhost.*Invalid status code/);
});

void test('host unreachable = 1 sends 2, which Icinga 2 refuses for a host: the host keeps no result', async () => {
  await waitUntil(
    () => /External command failed.*Invalid status code: 2/.test(icinga.log()),
    30_000,
    "Icinga's refusal of status 2",
  );
  assert.match(icinga.log(), /PROCESS_HOST_CHECK_RESULT;nagioshost;2;host is down/);
  assert.equal((await icinga.object('hosts/nagioshost'))?.last_check_result ?? null, null);
  // The agent sent it all the same: NSCA answers nothing.
  assert.doesNotMatch(agent.logs(), /sending to target nagios failed/);
});
