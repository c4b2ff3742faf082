/**
 * A real poller end to end: Debian's Nagios 4 (nagios4-core), run in the
 * foreground with its own configuration in this test's temp folder (not as a
 * system service), polls the agent every 3 s through check_nrpe (the
 * agent's RemoteServer) and check_nscp_api (the agent's WEBServer, legacy
 * `/query` with the `password` header). The assertions read Nagios's own
 * status file: each service's state, its plugin output and its performance
 * data as Nagios parsed it; then that every service was checked again.
 *
 * Bounded: `interval_length = 1` makes check intervals seconds, a
 * SCHEDULE_FORCED_HOST_SVC_CHECKS through the external command file starts
 * the first round at once, and every wait has a time limit (about 10 s in
 * all on a quiet machine). Nagios runs in its own process group, which the
 * test ends.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePerf } from '../../src/core/result.js';
import { listenerPort, startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { CHECK_NSCP_API, PERF_SCRIPT_ENTRIES, PERF_SCRIPTS } from '../helpers/nscp-clients.js';
import { Teardown } from '../helpers/teardown.js';
import { waitUntil } from '../helpers/wait-until.js';
import { inRange } from '../../src/in-range.js';

const NAGIOS = '/usr/sbin/nagios4';
const PLUGINS = '/usr/lib/nagios/plugins';
const PASSWORD = 'poller-secret';

interface Expected {
  service: string;
  command: string;
  state: number;
  output: string;
  perf: string;
}

const EXPECTED: Expected[] = [
  {
    service: 'nrpe ok',
    command: 'nrpe!perf_ok',
    state: 0,
    output: 'OK: all good',
    perf: "'temp'=21.5C;30;40;0;100 'count'=3;5;10",
  },
  {
    service: 'nrpe critical',
    command: 'nrpe!perf_crit',
    state: 2,
    output: 'CRITICAL: too hot',
    perf: "'temp'=45.25C;30;40;0;100",
  },
  {
    service: 'nscp ok',
    command: 'nscp!perf_ok',
    state: 0,
    output: 'perf_ok OK: all good',
    perf: "'temp'=21.500000C;30;40;0;100 'count'=3;5;10",
  },
  {
    service: 'nscp warning',
    command: 'nscp!perf_warn',
    state: 1,
    output: 'perf_warn WARNING: getting warm',
    perf: "'temp'=35C;30;40;0;100",
  },
  {
    service: 'nscp arguments',
    command: 'nscp_args!check_negate!command=perf_ok!ok=critical',
    state: 2,
    output: 'check_negate OK: all good',
    perf: "'temp'=21.500000C;30;40;0;100 'count'=3;5;10",
  },
];

void describe('Nagios 4 polls the agent through check_nrpe and check_nscp_api', () => {
  let agent: AgentProcess;
  let dir: string;
  const made = new Teardown();

  before(async () => {
    agent = made.add(
      await startAgent({
        files: PERF_SCRIPTS,
        ini: `; polled by Nagios 4
[/modules]
WEBServer = enabled
RemoteServer = enabled
CheckHelpers = enabled
CheckExternalScripts = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = ${PASSWORD}

[/settings/remote/server]
port = 0
bind to = 127.0.0.1

${PERF_SCRIPT_ENTRIES}`,
      }),
      (a) => a.stop(),
    );
    const ports = { web: await webPort(agent), nrpe: await listenerPort(agent, 'RemoteServer') };
    dir = join(agent.dir, 'nagios');
    mkdirSync(join(dir, 'spool'), { recursive: true });
    writeFileSync(join(dir, 'nagios.cfg'), nagiosCfg(dir));
    writeFileSync(join(dir, 'objects.cfg'), objectsCfg(ports.nrpe, ports.web));
    const nagios: ChildProcess = spawn(NAGIOS, [join(dir, 'nagios.cfg')], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const nagiosExit = new Promise<void>((resolve) => nagios.once('exit', () => resolve()));
    // Registered after the agent, Nagios stops first: it runs in a folder of the agent's.
    made.defer(async () => {
      if (nagios.pid !== undefined && nagios.exitCode === null) {
        process.kill(-nagios.pid, 'SIGTERM');
        const killer = setTimeout(() => nagios.pid !== undefined && process.kill(-nagios.pid, 'SIGKILL'), 10_000);
        await nagiosExit;
        clearTimeout(killer);
      }
    });
    let output = '';
    nagios.stdout?.on('data', (c: Buffer) => (output += c.toString('utf8')));
    nagios.stderr?.on('data', (c: Buffer) => (output += c.toString('utf8')));
    // The command file (a FIFO) exists once Nagios runs; then ask for every check now.
    await waitFor(
      () => existsSync(join(dir, 'nagios.cmd')),
      15_000,
      () => `Nagios did not start:\n${output}`,
    );
    const now = Math.floor(Date.now() / 1000);
    writeFileSync(join(dir, 'nagios.cmd'), `[${now}] SCHEDULE_FORCED_HOST_SVC_CHECKS;agent;${now}\n`);
  });

  after(() => made.close());

  void it("records each service's state, output and performance data in status.dat, and keeps polling", async () => {
    const statusFile = join(dir, 'status.dat');
    let services = new Map<string, Record<string, string>>();
    const settled = (): boolean => {
      services = readServices(statusFile);
      return EXPECTED.every(
        (e) =>
          services.get(e.service)?.has_been_checked === '1' &&
          services.get(e.service)?.current_state === String(e.state),
      );
    };
    await waitFor(
      settled,
      30_000,
      () => `services did not reach their states:\n${JSON.stringify([...services.entries()], null, 1)}`,
    );
    for (const e of EXPECTED) {
      const s = services.get(e.service) as Record<string, string>;
      assert.equal(s.current_state, String(e.state), e.service);
      assert.equal(s.state_type, '1', `${e.service} is in a HARD state`);
      assert.equal(s.plugin_output, e.output, e.service);
      assert.equal(s.performance_data?.trim(), e.perf, e.service);
    }
    // Nagios's perf data, parsed, carries the numbers the agent's checks produced.
    const nrpe = parsePerf(services.get('nrpe ok')?.performance_data ?? '');
    assert.deepEqual(nrpe, [
      { alias: 'temp', value: 21.5, unit: 'C', warning: 30, critical: 40, minimum: 0, maximum: 100 },
      { alias: 'count', value: 3, warning: 5, critical: 10 },
    ]);
    assert.deepEqual(parsePerf(services.get('nscp ok')?.performance_data ?? ''), nrpe);
    assert.deepEqual(parsePerf(services.get('nscp warning')?.performance_data ?? ''), [
      { alias: 'temp', value: 35, unit: 'C', warning: 30, critical: 40, minimum: 0, maximum: 100 },
    ]);

    // Polling goes on: every service is checked again within a few intervals.
    const first = new Map(EXPECTED.map((e) => [e.service, Number(services.get(e.service)?.last_check)]));
    await waitFor(
      () => {
        services = readServices(statusFile);
        return EXPECTED.every((e) => Number(services.get(e.service)?.last_check) > (first.get(e.service) as number));
      },
      20_000,
      () => 'a service was not checked again',
    );
    for (const e of EXPECTED)
      assert.equal(services.get(e.service)?.current_state, String(e.state), `${e.service} on the next check`);
  });
});

/** servicestatus blocks of a Nagios status.dat by service description (empty while the file is being replaced). */
function readServices(file: string): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return out;
  }
  for (const m of text.matchAll(/servicestatus \{\n([\s\S]*?)\n\s*\}/g)) {
    const fields: Record<string, string> = {};
    for (const line of inRange(m, 1).split('\n')) {
      const eq = line.indexOf('=');
      if (eq > 0) fields[line.slice(0, eq).trim()] = line.slice(eq + 1);
    }
    if (fields.service_description) out.set(fields.service_description, fields);
  }
  return out;
}

async function waitFor(cond: () => boolean, ms: number, why: () => string): Promise<void> {
  await waitUntil(cond, ms).catch(() => {
    throw new Error(`${why()} (waited ${ms} ms)`);
  });
}

function nagiosCfg(dir: string): string {
  return `# Nagios 4 for the agent's poller test: everything in ${dir}
log_file=${dir}/nagios.log
cfg_file=${dir}/objects.cfg
object_cache_file=${dir}/objects.cache
precached_object_file=${dir}/objects.precache
status_file=${dir}/status.dat
status_update_interval=1
nagios_user=root
nagios_group=root
check_external_commands=1
command_file=${dir}/nagios.cmd
lock_file=${dir}/nagios.lock
temp_file=${dir}/nagios.tmp
temp_path=${dir}
check_result_path=${dir}/spool
retain_state_information=0
state_retention_file=${dir}/retention.dat
interval_length=1
service_inter_check_delay_method=n
host_inter_check_delay_method=n
max_service_check_spread=1
max_host_check_spread=1
check_result_reaper_frequency=1
enable_notifications=0
enable_flap_detection=0
log_rotation_method=n
use_syslog=0
enable_environment_macros=0
`;
}

function objectsCfg(nrpePort: number, webPort: number): string {
  const service = (e: Expected): string => `define service {
  use fast
  service_description ${e.service}
  check_command ${e.command}
}
`;
  return `define timeperiod {
  timeperiod_name always
  alias always
  sunday 00:00-24:00
  monday 00:00-24:00
  tuesday 00:00-24:00
  wednesday 00:00-24:00
  thursday 00:00-24:00
  friday 00:00-24:00
  saturday 00:00-24:00
}
define command {
  command_name dummy
  command_line ${PLUGINS}/check_dummy $ARG1$
}
define command {
  command_name nrpe
  command_line ${PLUGINS}/check_nrpe -H 127.0.0.1 -p ${nrpePort} -t 20 -c $ARG1$
}
define command {
  command_name nscp
  command_line ${CHECK_NSCP_API} -H 127.0.0.1 -P ${webPort} --password ${PASSWORD} -q $ARG1$
}
define command {
  command_name nscp_args
  command_line ${CHECK_NSCP_API} -H 127.0.0.1 -P ${webPort} --password ${PASSWORD} -q $ARG1$ -a $ARG2$ $ARG3$
}
define contact {
  contact_name nobody
  host_notifications_enabled 0
  service_notifications_enabled 0
  host_notification_period always
  service_notification_period always
  host_notification_options n
  service_notification_options n
  host_notification_commands dummy
  service_notification_commands dummy
}
define host {
  host_name agent
  address 127.0.0.1
  check_command dummy!0
  max_check_attempts 1
  check_interval 60
  check_period always
  contacts nobody
  notification_period always
}
define service {
  name fast
  register 0
  host_name agent
  max_check_attempts 1
  check_interval 3
  retry_interval 3
  check_period always
  contacts nobody
  notification_period always
}
${EXPECTED.map(service).join('')}`;
}
