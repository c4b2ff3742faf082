/**
 * Benchmark: authenticated GET /api/v1/info over TLS keep-alive against a
 * bare node:https server, measured from outside.
 *
 * - Load generator: Debian's `wrk -t1 -c50` (its own process, written in C).
 * - Agent: `config-agent run` as a process with WEBServer on a free loopback port
 *   (TLS), a user `bench` with a pbkdf2 password and a role holding
 *   `info.get`; every request passes allowed hosts, Basic auth (cached
 *   after the first check per connection header), the privilege, routing,
 *   metrics and the JSON answer.
 * - Baseline: test/bench/servers/bare-https.js in its own process, with the
 *   agent's certificate and key and the same server options (TLS 1.2+,
 *   noDelay), answering the same JSON fields serialized per request (links
 *   from the Host header) with the same head as the agent's (its three
 *   security headers, type, length, no-store; Node adds Date and
 *   keep-alive to both), in one writeHead and one end: the same bytes on
 *   the wire. It does no routing, no allowed-hosts or Basic-auth check
 *   (it ignores the Authorization header wrk sends to both), no metrics.
 * - Rounds alternate (bare, agent) after a warm-up of each; each figure is
 *   the median of ROUNDS rounds, the ratio the median of the rounds' ratios
 *   (each agent round against the bare round right before it). Goal: agent
 *   at 0.8x bare or better.
 * - Also the CPU time (user + system, from /proc) each server process spent
 *   per request answered: on a machine shared with other work, throughput
 *   swings with the load, while CPU per request changes much less.
 *
 *   node dist/test/bench/web-api.bench.js [seconds per round]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAgent, webPort } from '../helpers/agent-process.js';
import { hashPassword } from '../../src/web/password-hash.js';
import { findWrk, wrk, type WrkResult } from './wrk.js';
import { spawnServer, type BaselineServer } from './servers/spawn-server.js';
import { inRange } from '../../src/in-range.js';

const SECONDS = Number(process.argv[2] ?? 5);
const ROUNDS = 5;
const CONNECTIONS = 50;
const GOAL = 0.8;

const bin = findWrk();
if (!bin) {
  console.log('web-api: wrk is not installed (apt-get install wrk); nothing measured (MISS)');
  process.exit(0);
}

const agent = await startAgent({
  ini: `[/modules]
WEBServer = enabled

[/settings/WEB/server]
port = 0s
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
const port = await webPort(agent);
let bare: BaselineServer | undefined;
try {
  bare = await spawnServer('./bare-https.js', [
    join(agent.dir, 'security/certificate.pem'),
    join(agent.dir, 'security/certificate.key'),
  ]);
  const barePort = bare.port;
  const headers = { Authorization: `Basic ${Buffer.from('bench:bench-pw').toString('base64')}` };
  const run = (p: number, seconds: number): Promise<WrkResult> =>
    wrk(bin, `https://127.0.0.1:${p}/api/v1/info`, { threads: 1, connections: CONNECTIONS, seconds, headers });
  await run(barePort, 1);
  await run(port, 1);
  const bareRounds: WrkResult[] = [];
  const agentRounds: WrkResult[] = [];
  const ratios: number[] = [];
  const cpu = { bare: [] as number[], agent: [] as number[] };
  const measured = async (p: number, pid: number, into: number[]): Promise<WrkResult> => {
    const c0 = cpuMs(pid);
    const r = await run(p, SECONDS);
    into.push(((cpuMs(pid) - c0) * 1000) / Math.max(1, r.requests));
    return r;
  };
  for (let i = 0; i < ROUNDS; i++) {
    const br = await measured(barePort, bare.pid, cpu.bare);
    const ar = await measured(port, agent.proc.pid as number, cpu.agent);
    bareRounds.push(br);
    agentRounds.push(ar);
    ratios.push(ar.rps / br.rps);
  }
  const b = median(bareRounds);
  const a = median(agentRounds);
  const row = (name: string, f: WrkResult, all: WrkResult[]): string =>
    `web-api: ${name.padEnd(16)} ${f.rps.toFixed(0).padStart(7)} req/s median (rounds ${all.map((r) => r.rps.toFixed(0)).join(', ')}), mean latency ${f.latencyMs.toFixed(2)} ms, errors ${all.reduce((t, r) => t + r.errors, 0)}`;
  console.log(
    `web-api: GET /api/v1/info, HTTPS keep-alive, Basic auth, wrk -t1 -c${CONNECTIONS} -d${SECONDS}s, ${ROUNDS} alternating rounds; each server in its own process`,
  );
  console.log(row('bare node:https', b, bareRounds));
  console.log(row('agent', a, agentRounds));
  const ratio = medianOf(ratios);
  const cb = medianOf(cpu.bare);
  const ca = medianOf(cpu.agent);
  console.log(
    `web-api: CPU per request (user + system of the server process): bare ${cb.toFixed(0)} µs, agent ${ca.toFixed(0)} µs median (bare/agent ${(cb / ca).toFixed(2)}); load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
  );
  console.log(
    `web-api: ratio agent/bare ${ratio.toFixed(2)} (median of the rounds' ratios ${ratios.map((r) => r.toFixed(2)).join(', ')}) (goal >= ${GOAL}: ${ratio >= GOAL && a.errors === 0 ? 'PASS' : 'MISS'})`,
  );
} finally {
  bare?.stop();
  await agent.stop();
}

/** CPU time (user + system) a process has used, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function medianOf(xs: number[]): number {
  return inRange(
    [...xs].sort((x, y) => x - y),
    Math.floor(xs.length / 2),
  );
}

function median(rounds: WrkResult[]): WrkResult {
  return inRange(
    [...rounds].sort((x, y) => x.rps - y.rps),
    Math.floor(rounds.length / 2),
  );
}
