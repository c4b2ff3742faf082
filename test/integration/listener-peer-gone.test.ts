/**
 * A query whose peer went away is cancelled, on NRPE and on the agent
 * protocol as on the web: the per-connection signal of the managed listener
 * (src/protocols/listener/peer-gone.ts) reaches the script runner, which
 * stops the script's whole process group. The script starts a long sleep
 * and writes its pid; the peer (Debian's check_nrpe, killed; a raw
 * agent-protocol TLS connection, destroyed) leaves as soon as the pid is
 * there, and the sleep must end long before its 60 s and before any
 * timeout of the agent (all set to 120 s). Port 0 everywhere.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listenerPort, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { agentTls, queryFrame } from '../helpers/abuse-peers.js';
import { CHECK_NRPE } from '../helpers/nrpe-daemon.js';
import { waitUntil } from '../helpers/wait-until.js';

/** True while a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

void describe('a query whose peer went away is cancelled (process)', () => {
  let dir: string;
  let agent: AgentProcess;
  let nrpePort: number;
  let agentPort: number;
  const made = new Teardown();
  const pidFile = (who: string): string => join(dir, `${who}.pid`);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'peer-gone-'));
    made.defer(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'slow.sh'), '#!/bin/sh\nsleep 60 &\necho $! > "$1"\nwait\n', { mode: 0o755 });
    agent = made.add(
      await startAgent({
        ini: `[/modules]
CheckExternalScripts = enabled
RemoteServer = enabled
AgentServer = enabled

[/settings/default]
allowed hosts = 127.0.0.1
timeout = 120

[/settings/external scripts]
timeout = 120
allow arguments = true

[/settings/external scripts/scripts]
check_slow = ${join(dir, 'slow.sh')} $ARG1$

[/settings/remote/server]
port = 0
bind to = 127.0.0.1
allow arguments = true
timeout = 120

[/settings/agent/server]
port = 0
bind to = 127.0.0.1
timeout = 120
`,
      }),
      (a) => a.stop(),
    );
    nrpePort = await listenerPort(agent, 'RemoteServer');
    agentPort = await listenerPort(agent, 'AgentServer');
  });
  after(() => made.close());

  /** Waits for the script's sleep to start, lets the peer go, and waits (bounded) for the sleep to end. */
  const cancelledWhenGone = async (who: string, leave: () => void): Promise<void> => {
    await waitUntil(
      () => existsSync(pidFile(who)) && readFileSync(pidFile(who), 'utf8').trim() !== '',
      20_000,
      `the script of ${who} started`,
    );
    const pid = Number(readFileSync(pidFile(who), 'utf8'));
    assert.ok(alive(pid), 'the sleep runs while the peer waits');
    leave();
    await waitUntil(() => !alive(pid), 20_000, `the sleep of ${who} (pid ${pid}) ended after its peer left`);
  };

  void it('NRPE: check_nrpe killed while its script runs: the script is stopped', async () => {
    const child = execFile(
      CHECK_NRPE,
      ['-H', '127.0.0.1', '-p', String(nrpePort), '-t', '100', '-c', 'check_slow', '-a', pidFile('nrpe')],
      () => undefined,
    );
    await cancelledWhenGone('nrpe', () => child.kill('SIGKILL'));
  });

  void it('agent protocol: the connection closed while its query runs: the script is stopped', async () => {
    const socket = await agentTls(agentPort);
    socket.write(queryFrame(1, 'check_slow', [pidFile('agent')]));
    await cancelledWhenGone('agent', () => socket.destroy());
  });
});
