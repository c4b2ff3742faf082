/**
 * Benchmark: authenticated GET /api/v1/info over TLS keep-alive against a
 * bare node:https server, measured from outside.
 *
 * - Load generator: Debian's `wrk -t1 -c50` (its own process, written in C).
 * - Agent: `agent run` as a process with WEBServer on a free loopback port
 *   (TLS), a user `bench` with a pbkdf2 password and a role holding
 *   `info.get`; every request passes allowed hosts, Basic auth (cached
 *   after the first check per connection header), the privilege, routing,
 *   metrics and the JSON answer.
 * - Baseline: test/bench/servers/bare-https.js in its own process, with the
 *   agent's certificate and key and the same server options, answering the
 *   same JSON fields serialized per request; it ignores the Authorization
 *   header that wrk sends to both.
 * - Rounds alternate (bare, agent) after a warm-up of each; each figure is
 *   the median of ROUNDS rounds. Goal: agent at 0.8x bare or better.
 *
 *   node dist/test/bench/web-api.bench.js [seconds per round]
 */
import { join } from 'node:path';
import { freePort, startAgent } from '../helpers/agent-process.js';
import { hashPassword } from '../../src/web/password-hash.js';
import { findWrk, wrk, type WrkResult } from './wrk.js';
import { spawnServer, type BaselineServer } from './servers/spawn-server.js';

const SECONDS = Number(process.argv[2] ?? 5);
const ROUNDS = 3;
const CONNECTIONS = 50;
const GOAL = 0.8;

const bin = findWrk();
if (!bin) {
  console.log('web-api: wrk is not installed (apt-get install wrk); nothing measured (MISS)');
  process.exit(0);
}

const port = await freePort();
const agent = await startAgent({
  ini: `[/modules]
WEBServer = enabled

[/settings/WEB/server]
port = ${port}s
bind to = 127.0.0.1
password = root-bench-pw
allowed hosts = 127.0.0.1

[/settings/web/roles]
reader = info.get

[/settings/web/users/bench]
password = ${await hashPassword('bench-pw')}
role = reader
`,
  env: { AGENT_LOG_LEVEL: 'info' },
  readyTimeoutMs: 60_000,
});
let bare: BaselineServer | undefined;
try {
  bare = await spawnServer('./bare-https.js', [join(agent.dir, 'security/certificate.pem'), join(agent.dir, 'security/certificate.key')]);
  const barePort = bare.port;
  const headers = { Authorization: `Basic ${Buffer.from('bench:bench-pw').toString('base64')}` };
  const run = (p: number, seconds: number): Promise<WrkResult> => wrk(bin, `https://127.0.0.1:${p}/api/v1/info`, { threads: 1, connections: CONNECTIONS, seconds, headers });
  await run(barePort, 1);
  await run(port, 1);
  const bareRounds: WrkResult[] = [];
  const agentRounds: WrkResult[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    bareRounds.push(await run(barePort, SECONDS));
    agentRounds.push(await run(port, SECONDS));
  }
  const b = median(bareRounds);
  const a = median(agentRounds);
  const row = (name: string, f: WrkResult, all: WrkResult[]): string =>
    `web-api: ${name.padEnd(16)} ${f.rps.toFixed(0).padStart(7)} req/s median (rounds ${all.map((r) => r.rps.toFixed(0)).join(', ')}), mean latency ${f.latencyMs.toFixed(2)} ms, errors ${all.reduce((t, r) => t + r.errors, 0)}`;
  console.log(`web-api: GET /api/v1/info, HTTPS keep-alive, Basic auth, wrk -t1 -c${CONNECTIONS} -d${SECONDS}s, ${ROUNDS} alternating rounds; each server in its own process`);
  console.log(row('bare node:https', b, bareRounds));
  console.log(row('agent', a, agentRounds));
  const ratio = a.rps / b.rps;
  console.log(`web-api: ratio agent/bare ${ratio.toFixed(2)} (goal >= ${GOAL}: ${ratio >= GOAL && a.errors === 0 ? 'PASS' : 'MISS'})`);
} finally {
  bare?.stop();
  await agent.stop();
}

function median(rounds: WrkResult[]): WrkResult {
  return [...rounds].sort((x, y) => x.rps - y.rps)[Math.floor(rounds.length / 2)] as WrkResult;
}
