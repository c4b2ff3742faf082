/**
 * agent_query against remote_query to the same peer agent, over the same
 * kind of TLS key exchange: a peer agent process runs AgentServer (TLS, its
 * generated certificate; ECDHE) and RemoteServer (NRPE over TLS); this
 * process is the other agent, with AgentClient and RemoteClient started on
 * a local core. The remote client target offers check_nrpe's list
 * `ALL:!MD5:@STRENGTH`, so the server picks anonymous ECDH (AECDH), an
 * elliptic-curve exchange like the agent protocol's, not the finite-field
 * ADH of the defaults (about 10x dearer). 10,000 queries of check_ok through
 * each, one at a time, then 1,000 each with 10 in flight. The difference
 * that remains is the protocols': the agent protocol keeps its connection,
 * NRPE opens one per query (a handshake each). BENCH_CALLS overrides the
 * 10,000. Goal: agent_query at 5x remote_query or better (queries per second).
 */
import { listenerPort, startAgent } from '../helpers/agent-process.js';
import { startLocalCore } from '../../src/cli/local-core.js';
import { loadSettingsText } from '../../src/settings/model/load.js';
import { sink } from '../../src/log.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 10_000);
const WIDE_CALLS = Math.min(CALLS, 1000);
const WIDTH = 10;
const GOAL = 5;

sink.consoleLevel = 'error';
const peer = await startAgent({
  ini: `[/modules]
CheckHelpers = enabled
AgentServer = enabled
RemoteServer = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/agent/server]
port = 0
bind to = 127.0.0.1

[/settings/remote/server]
port = 0
bind to = 127.0.0.1
`,
});
const agentPort = await listenerPort(peer, 'AgentServer');
const remotePort = await listenerPort(peer, 'RemoteServer');

const loaded = loadSettingsText(
  '[/settings/remote/client/targets/default]\nallowed ciphers = ALL:!MD5:@STRENGTH\n',
  'bench-agent.ini',
);
if (!loaded.ok) throw new Error('built-in settings do not load');
const local = await startLocalCore(loaded.snapshot, { modules: ['AgentClient', 'RemoteClient'] });

async function run(
  query: string,
  port: number,
  width: number,
  calls: number,
): Promise<{ ms: number; failed: number; sample: string }> {
  const args = ['--host', '127.0.0.1', '--port', String(port), '--command', 'check_ok'];
  let next = 0;
  let failed = 0;
  let sample = '';
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < calls) {
        next++;
        const r = await local.core.query(query, args);
        if (r.result !== 0 || r.message !== 'OK: check_ok') {
          failed++;
          sample = r.message;
        }
      }
    }),
  );
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, failed, sample };
}

try {
  // Warm-up: connections, TLS sessions, JIT.
  for (const [q, p] of [
    ['agent_query', agentPort],
    ['remote_query', remotePort],
  ] as const)
    for (let i = 0; i < 50; i++)
      await local.core.query(q, ['--host', '127.0.0.1', '--port', String(p), '--command', 'check_ok']);
  for (const [width, calls] of [
    [1, CALLS],
    [WIDTH, WIDE_CALLS],
  ] as const) {
    const agent = await run('agent_query', agentPort, width, calls);
    const remote = await run('remote_query', remotePort, width, calls);
    const qps = (r: { ms: number }): number => (calls * 1000) / r.ms;
    const ratio = qps(agent) / qps(remote);
    const fail = (r: { failed: number; sample: string }): string =>
      r.failed ? ` (${r.failed} failed, e.g. "${r.sample}")` : '';
    console.log(
      `agent-protocol ${width === 1 ? 'one at a time' : `${width} in flight`}: ${calls} agent_query in ${agent.ms.toFixed(0)} ms = ${qps(agent).toFixed(0)} q/s${fail(agent)}; ${calls} remote_query (NRPE, TLS AECDH) in ${remote.ms.toFixed(0)} ms = ${qps(remote).toFixed(0)} q/s${fail(remote)}`,
    );
    console.log(
      `agent-protocol ${width === 1 ? 'one at a time' : `${width} in flight`}: ratio agent_query/remote_query = ${ratio.toFixed(2)}x; goal >= ${GOAL}x: ${ratio >= GOAL && !agent.failed ? 'PASS' : 'MISS'}`,
    );
  }
} finally {
  await local.stop();
  await peer.stop();
}
