/**
 * Allow-lists see the canonical command (issue 37, item 3): with
 * `allowed queries = *, !check_process, !check_drivesize, !check_files`,
 * NSClient++'s legacy names of those checks (checkProcState, CheckDriveSize,
 * CheckFiles, checkFile2), their case variants, another Unicode spelling
 * that folds to the same name, and all of these inside check_negate,
 * check_multi and check_timeout (nested too) are refused over NRPE and the
 * agent protocol, naming the check they would run. AgentServer's default
 * list is RemoteServer's: no remote_* / agent_* relay unless named, and
 * naming them is warned about.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { listenerPort, replaceFile, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { checkNrpe } from '../helpers/nrpe-daemon.js';
import { agentQuery } from '../helpers/abuse-peers.js';
import { Teardown } from '../helpers/teardown.js';

const REFUSED = '*, !check_process, !check_drivesize, !check_files';

/** Each attempt: the query and its arguments, and the check it would run. */
const ATTEMPTS: readonly [string, string[], string][] = [
  ['checkProcState', ['ShowAll', 'sshd'], 'check_process'],
  ['CHECKPROCSTATE', ['sshd'], 'check_process'],
  ['checkprocstate', [], 'check_process'],
  ['CheckDriveSize', ['Drive=/'], 'check_drivesize'],
  ['checkdrivesize', [], 'check_drivesize'],
  ['CheckFiles', ['path=/tmp'], 'check_files'],
  ['checkFile2', ['path=/tmp'], 'check_files'],
  ['CHECK_PROCESS', [], 'check_process'],
  ['check_negate', ['command=checkProcState'], 'check_process'],
  ['check_negate', ['command=CheckDriveSize', 'ok=critical'], 'check_drivesize'],
  ['check_multi', ['command=check_ok fine', 'command=CheckFiles path=/tmp'], 'check_files'],
  ['check_timeout', ['command=checkFile2', 'timeout=5', 'arguments=path=/tmp'], 'check_files'],
  ['check_timeout', ['command=check_negate', 'timeout=5', 'arguments=command=checkProcState'], 'check_process'],
  ['check_multi', ['command=check_negate command=check_timeout arguments=command=CheckDriveSize'], 'check_drivesize'],
];

void describe('legacy names, case variants and wrappers meet the allow-list as the check they run', () => {
  let agent: AgentProcess;
  let nrpePort = 0;
  let agentPort = 0;
  const made = new Teardown();

  before(async () => {
    agent = made.add(
      await startAgent({
        ini: `[/modules]
CheckSystem = enabled
CheckDisk = enabled
CheckHelpers = enabled
RemoteServer = enabled
AgentServer = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/remote/server]
port = 0
bind to = 127.0.0.1
allow arguments = 1
allowed queries = ${REFUSED}

[/settings/agent/server]
port = 0
bind to = 127.0.0.1
allowed queries = ${REFUSED}

[/settings/disk]
allowed paths = /tmp
`,
      }),
      (a) => a.stop(),
    );
    nrpePort = await listenerPort(agent, 'RemoteServer');
    agentPort = await listenerPort(agent, 'AgentServer');
  });
  after(() => made.close());

  void it('refuses every spelling over NRPE', async () => {
    for (const [command, args, check] of ATTEMPTS) {
      const r = await checkNrpe(nrpePort, ['-c', command, ...(args.length > 0 ? ['-a', ...args] : [])]);
      assert.match(
        r.out,
        new RegExp(`query ${check} is not allowed over RemoteServer: add it to allowed queries`, 'iu'),
        `${command} ${args.join(' ')}`,
      );
      if (command !== 'check_negate') assert.equal(r.code, 3, r.out);
    }
  });

  void it('refuses every spelling over the agent protocol, also one that folds to the name (Kelvin sign)', async () => {
    for (const [command, args, check] of [...ATTEMPTS, ['chec\u212a_process', [], 'check_process'] as const]) {
      const message = await agentQuery(agentPort, command, 10_000, [...args]);
      assert.match(
        message,
        new RegExp(`query ${check} is not allowed over AgentServer: add it to allowed queries`, 'iu'),
        `${command} ${args.join(' ')}`,
      );
    }
  });

  void it('still runs the legacy names and wrappers the list allows', async () => {
    const cpu = await checkNrpe(nrpePort, ['-c', 'checkCPU', '-a', 'time=1s']);
    assert.doesNotMatch(cpu.out, /not allowed/, cpu.out);
    assert.deepEqual(await checkNrpe(nrpePort, ['-c', 'check_negate', '-a', 'command=check_ok', 'ok=warning']), {
      code: 1,
      out: 'OK: check_ok',
    });
  });
});

void describe("AgentServer's default allowed queries are RemoteServer's: no relay unless named", () => {
  let agent: AgentProcess;
  let agentPort = 0;
  const made = new Teardown();
  const ini = (list: string): string => `[/modules]
CheckHelpers = enabled
AgentServer = enabled
AgentClient = enabled
RemoteClient = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/agent/server]
port = 0
bind to = 127.0.0.1
${list}
`;

  before(async () => {
    agent = made.add(await startAgent({ ini: ini('') }), (a) => a.stop());
    agentPort = await listenerPort(agent, 'AgentServer');
  });
  after(() => made.close());

  void it('refuses agent_* and remote_* by default, without a relay warning', async () => {
    for (const [command, args] of [
      ['agent_query', ['host=127.0.0.1', `port=${agentPort}`, 'command=check_ok']],
      ['remote_query', ['host=127.0.0.1', 'port=1', 'command=check_ok']],
      ['Agent_Exec', ['host=127.0.0.1', 'command=CheckExternalScripts']],
      ['check_negate', ['command=agent_query', 'arguments=host=127.0.0.1']],
    ] as const) {
      const message = await agentQuery(agentPort, command, 10_000, [...args]);
      assert.match(message, /^query (agent|remote)_\w+ is not allowed over AgentServer/i, `${command}: ${message}`);
    }
    assert.doesNotMatch(agent.logs(), /AGENT_WARN_CLIENT_RELAY/);
  });

  void it('warns when the list names the client queries', async () => {
    const mark = agent.mark();
    replaceFile(agent.settingsFile, ini('allowed queries = *'));
    await agent.waitForLog(
      /AGENT_WARN_CLIENT_RELAY \[\/settings\/agent\/server\]: allowed queries lets peers run the client queries remote_query, remote_exec, remote_submit, remote_forward, agent_query, agent_exec, agent_submit: a peer makes this agent connect/,
      10_000,
      mark,
    );
  });
});
