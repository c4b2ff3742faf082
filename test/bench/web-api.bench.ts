/**
 * Benchmark: authenticated GET /api/v1/info over TLS keep-alive against a
 * bare node:https server, measured from outside, once with each kind of
 * certificate an admin runs: the EC P-256 one the agent makes on its first
 * start, and an RSA-2048 one given in the settings (its key written before
 * the start, the agent making the certificate for that key).
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
 *   from the Host header, the host name) with the same head as the agent's
 *   (its three security headers, type, length, no-store; Node adds Date and
 *   keep-alive to both), in one writeHead and one end: the same bytes on
 *   the wire, which the benchmark checks before it measures. It does no
 *   routing, no allowed-hosts or Basic-auth check (it ignores the
 *   Authorization header wrk sends to both), no metrics.
 * - Both run the same Node binary (the one running this script: Node 24,
 *   the runtime the package ships) with the same certificate, so the TLS
 *   key exchange and record encryption are the same work on both sides.
 * - The heap state: 200 ms after its start the agent makes one
 *   memory-reducing collection (src/cli/heap-settle.ts), and V8's memory
 *   reducer makes more in an idle agent 8-10 s after any start. Such a
 *   collection used to leave a process answering HTTPS about 10% slower
 *   for as long as it ran: process.nextTick's object literal turned
 *   megamorphic once the collection dropped its maps, which the agent now
 *   prevents by keeping one tick object alive (src/cli/keep-tick-maps.ts;
 *   docs/benchmarks.md "Issue 41: what is left"). A bare server allocates
 *   too little for the memory reducer and stays as it started. The goal is
 *   judged against the bare server as it is (fresh); a second bare server
 *   that runs the agent's settling function after it listens (`--settled`)
 *   is measured in the same rounds and its ratio printed beside, not
 *   judged: the agent's request path alone, in the same heap state, and a
 *   check that the settling costs a process nothing.
 * - Two sets of processes (an agent, a settled and a fresh bare server with
 *   its certificate each): one process of a build can land 5% from the next
 *   of the same build (measured 2026-11-29 with three of each), so one set
 *   would measure its draw. Rounds alternate (settled bare, agent, fresh
 *   bare), set after set, after a warm-up of each process; each figure is
 *   the median of ROUNDS rounds, the ratio the median of the rounds' ratios
 *   (each agent round against the bare rounds of its set beside it). Goal:
 *   agent at 0.9x the (fresh) bare server or better with each certificate.
 * - Also the CPU time (user + system, from /proc) each server process spent
 *   per request answered: on a machine shared with other work, throughput
 *   swings with the load, while CPU per request changes much less.
 *
 *   node dist/test/bench/web-api.bench.js [seconds per round]
 */
import { readFileSync } from 'node:fs';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { get as httpsGet } from 'node:https';
import { join } from 'node:path';
import { startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { hashPassword } from '../../src/web/password-hash.js';
import { findWrk, wrk, type WrkResult } from './wrk.js';
import { spawnServer, type BaselineServer } from './servers/spawn-server.js';
import { inRange } from '../../src/in-range.js';
import { median } from './median.js';
import { processCpuMs } from '../helpers/proc-cpu.js';

const SECONDS = Number(process.argv[2] ?? 5);
const ROUNDS = 6;
/** Sets of processes (agent, settled bare, fresh bare) the rounds alternate over: one process of a build can land 5% from the next. */
const PAIRS = 2;
const WARM_UP_SECONDS = 1;
const CONNECTIONS = 50;
const GOAL = 0.9;
/** The servers of a set, in the order each round measures them. */
const SIDES = ['settled', 'agent', 'fresh'] as const;

const bin = findWrk();
if (!bin) {
  console.log('web-api: wrk is not installed (apt-get install wrk); nothing measured (MISS)');
  process.exit(0);
}

const results: string[] = [];
for (const kind of ['ec', 'rsa'] as const) results.push(await measureWith(kind, bin));
console.log(`web-api: ${results.join('; ')}`);

/** One agent and the bare servers beside it, with the agent's certificate. */
interface Pair {
  agent: AgentProcess;
  port: number;
  /** As it is: the baseline of the goal. */
  fresh: BaselineServer;
  /** Through the agent's heap settling after it listens: reported beside. */
  settled: BaselineServer;
}

type Side = (typeof SIDES)[number];

/** Where a side of a set listens, and its process. */
function target(pair: Pair, side: Side): { port: number; pid: number } {
  return side === 'agent' ? { port: pair.port, pid: pair.agent.proc.pid as number } : pair[side];
}

/** The rounds against PAIRS agents and bare servers with a certificate of `kind`; returns the summary. */
async function measureWith(kind: 'ec' | 'rsa', bin: string): Promise<string> {
  const files: Record<string, string> = {};
  if (kind === 'rsa') {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    files['security/certificate.key'] = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  }
  const auth = `Basic ${Buffer.from('bench:bench-pw').toString('base64')}`;
  const ini = await benchSettings();
  const pairs: Pair[] = [];
  try {
    for (let i = 0; i < PAIRS; i++) pairs.push(await startPair(kind, ini, files, auth));
    const run = (p: number, seconds: number): Promise<WrkResult> =>
      wrk(bin, `https://127.0.0.1:${p}/api/v1/info`, {
        threads: 1,
        connections: CONNECTIONS,
        seconds,
        headers: { Authorization: auth },
      });
    for (const pair of pairs) for (const side of SIDES) await run(target(pair, side).port, WARM_UP_SECONDS);
    const tally = (): { rounds: WrkResult[]; cpuUs: number[]; ratios: number[] } => ({
      rounds: [],
      cpuUs: [],
      ratios: [],
    });
    const sides: Record<Side, ReturnType<typeof tally>> = { settled: tally(), agent: tally(), fresh: tally() };
    const { settled, agent, fresh } = sides;
    for (let i = 0; i < ROUNDS; i++) {
      const pair = inRange(pairs, i % PAIRS);
      for (const side of SIDES) {
        const { port, pid } = target(pair, side);
        const c0 = processCpuMs(pid, true);
        const r = await run(port, SECONDS);
        sides[side].cpuUs.push(((processCpuMs(pid, true) - c0) * 1000) / Math.max(1, r.requests));
        sides[side].rounds.push(r);
      }
      const rps = inRange(agent.rounds, i).rps;
      fresh.ratios.push(rps / inRange(fresh.rounds, i).rps);
      settled.ratios.push(rps / inRange(settled.rounds, i).rps);
    }
    const row = (name: string, all: WrkResult[]): string => {
      const f = medianRound(all);
      return `web-api: ${kind.toUpperCase()} ${name.padEnd(16)} ${f.rps.toFixed(0).padStart(7)} req/s median (rounds ${all.map((r) => r.rps.toFixed(0)).join(', ')}), mean latency ${f.latencyMs.toFixed(2)} ms, errors ${all.reduce((t, r) => t + r.errors, 0)}`;
    };
    console.log(
      `web-api: ${kind.toUpperCase()} certificate (${kind === 'ec' ? 'P-256, made by the agent' : '2048 bits, key given in the settings'}): GET /api/v1/info, HTTPS keep-alive, Basic auth, wrk -t1 -c${CONNECTIONS} -d${SECONDS}s, ${ROUNDS} alternating rounds over ${PAIRS} sets of processes (agent, settled and fresh bare server); each server in its own process, ${process.version}`,
    );
    console.log(row('bare, settled', settled.rounds));
    console.log(row('agent', agent.rounds));
    console.log(row('bare, fresh', fresh.rounds));
    const [cs, ca, cf] = [settled, agent, fresh].map((t) => median(t.cpuUs)) as [number, number, number];
    console.log(
      `web-api: ${kind.toUpperCase()} CPU per request (user + system of the server process): bare settled ${cs.toFixed(1)} µs, agent ${ca.toFixed(1)} µs, bare fresh ${cf.toFixed(1)} µs median (settled/agent ${(cs / ca).toFixed(2)}, fresh/agent ${(cf / ca).toFixed(2)}); load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
    );
    const settledRatio = median(settled.ratios);
    console.log(
      `web-api: ${kind.toUpperCase()} ratio agent/settled bare ${settledRatio.toFixed(2)} (rounds ${settled.ratios.map((r) => r.toFixed(2)).join(', ')}): both after a memory-reducing collection, the request path alone (not judged)`,
    );
    const freshRatio = median(fresh.ratios);
    const verdict = freshRatio >= GOAL && agent.rounds.every((r) => r.errors === 0) ? 'PASS' : 'MISS';
    console.log(
      `web-api: ${kind.toUpperCase()} ratio agent/bare ${freshRatio.toFixed(2)} (median of the rounds' ratios ${fresh.ratios.map((r) => r.toFixed(2)).join(', ')}) (goal >= ${GOAL}: ${verdict})`,
    );
    return `${kind.toUpperCase()} ${freshRatio.toFixed(2)}x ${verdict} (settled bare ${settledRatio.toFixed(2)}x)`;
  } finally {
    for (const pair of pairs) {
      pair.settled.stop();
      pair.fresh.stop();
      await pair.agent.stop();
    }
  }
}

/** The agent's settings: WEBServer over TLS on a free port, a user `bench` whose role holds `info.get`. */
async function benchSettings(): Promise<string> {
  return `[/modules]
WEBServer = enabled

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = root-bench-pw
allowed hosts = 127.0.0.1
certificate = \${certificate-path}/certificate.pem
certificate key = \${certificate-path}/certificate.key

[/settings/web/roles]
reader = info.get

[/settings/web/users/bench]
password = ${await hashPassword('bench-pw')}
role = reader
`;
}

/** An agent on `ini` and the bare servers with the agent's certificate, checked to answer the same bytes; on failure, none is left running. */
async function startPair(kind: 'ec' | 'rsa', ini: string, files: Record<string, string>, auth: string): Promise<Pair> {
  const agent = await startAgent({ ini, files, env: { AGENT_LOG_LEVEL: 'info' }, readyTimeoutMs: 60_000 });
  let settled: BaselineServer | undefined;
  let fresh: BaselineServer | undefined;
  try {
    const port = await webPort(agent);
    const keyFile = join(agent.dir, 'security/certificate.key');
    const keyType = createPrivateKey(readFileSync(keyFile)).asymmetricKeyType;
    if (keyType !== kind) throw new Error(`the agent's certificate key is ${keyType}, expected ${kind}`);
    const certFile = join(agent.dir, 'security/certificate.pem');
    fresh = await spawnServer('./bare-https.js', [certFile, keyFile]);
    settled = await spawnServer('./bare-https.js', [certFile, keyFile, '--settled']);
    await sameBytes(port, fresh.port, auth);
    await sameBytes(port, settled.port, auth);
    return { agent, port, fresh, settled };
  } catch (err) {
    fresh?.stop();
    settled?.stop();
    await agent.stop();
    throw err;
  }
}

/** Both servers answer the same status, head fields and body length (the values of Date and the links' port differ). */
async function sameBytes(agentPort: number, barePort: number, auth: string): Promise<void> {
  const fetchOnce = (p: number): Promise<{ head: string[]; body: string }> =>
    new Promise((resolve, reject) => {
      const req = httpsGet(
        {
          host: '127.0.0.1',
          port: p,
          path: '/api/v1/info',
          headers: { Authorization: auth },
          rejectUnauthorized: false,
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () =>
            resolve({ head: [String(res.statusCode), ...res.rawHeaders.filter((_, i) => i % 2 === 0)], body }),
          );
        },
      );
      req.on('error', reject);
    });
  const [a, b] = [await fetchOnce(agentPort), await fetchOnce(barePort)];
  const fields = (body: string): string => Object.keys(JSON.parse(body) as object).join(',');
  const sizeOf = (body: string, p: number): number => body.replaceAll(String(p), '').length;
  if (a.head.join('|') !== b.head.join('|') || fields(a.body) !== fields(b.body))
    throw new Error(`the bare server does not answer as the agent does:\n${JSON.stringify(a)}\n${JSON.stringify(b)}`);
  if (Math.abs(sizeOf(a.body, agentPort) - sizeOf(b.body, barePort)) > 40)
    throw new Error(`the bodies differ in size: ${a.body} / ${b.body}`);
}

/** CPU time (user + system) a process has used, in ms. */

/** The round of median throughput. */
function medianRound(rounds: WrkResult[]): WrkResult {
  return inRange(
    [...rounds].sort((x, y) => x.rps - y.rps),
    Math.floor(rounds.length / 2),
  );
}
