/**
 * Benchmark: web latency while another listener's clients flood the agent.
 * One agent process (WEBServer over TLS, AgentServer plain, CheckHelpers);
 * this process times GET /api/v1/info one request after the other on one
 * kept-alive connection: first with nothing else running (the baseline),
 * then while a flood process (test/bench/servers/agent-flood.ts, its own
 * process) keeps 10 agent-protocol clients busy, each with two frames of
 * 256 check_ok in flight. Both phases send the same requests over the same
 * connection from the same process; only the flood differs. Figures:
 * median and p95 of each phase, the ratio of the medians, and the flood's
 * own rate. Goal: the median under flood within 3x the idle median.
 */
import { spawn } from 'node:child_process';
import { Agent } from 'node:https';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { listenerPort } from '../helpers/agent-process.js';
import { startWebAgent } from '../helpers/nscp-clients.js';
import { basic, webRequest } from '../helpers/web-client.js';

const REQUESTS = 400;
const CLIENTS = 10;
const FRAME = 256;
const GOAL = 3;
const FLOOD = fileURLToPath(new URL('./servers/agent-flood.js', import.meta.url));

// Web over TLS as shipped; the agent protocol plain, so the flood's cost is the queries, not TLS.
const sections: Record<string, Record<string, string | number>> = {
  '/modules': { CheckHelpers: 'enabled', AgentServer: 'enabled', WEBServer: 'enabled' },
  '/settings/default': { 'allowed hosts': '127.0.0.1', password: 'bench-secret' },
  '/settings/WEB/server': { port: '0s', 'bind to': '127.0.0.1' },
  '/settings/agent/server': { port: 0, 'bind to': '127.0.0.1', 'use ssl': 0 },
};
const ini = Object.entries(sections)
  .map(
    ([path, keys]) =>
      `[${path}]\n${Object.entries(keys)
        .map(([k, v]) => `${k} = ${v}`)
        .join('\n')}\n`,
  )
  .join('\n');
const { agent, base, ca } = await startWebAgent({ ini });
const agentPort = await listenerPort(agent, 'AgentServer');
const keepAlive = new Agent({ keepAlive: true, maxSockets: 1, ca });
const headers = { authorization: basic('root', 'bench-secret') };

async function sample(n: number): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await webRequest(`${base}/api/v1/info`, { headers, agent: keepAlive, ca });
    ms.push(performance.now() - t0);
    if (r.status !== 200) throw new Error(`GET /api/v1/info: ${r.status} ${r.body}`);
  }
  return ms.sort((a, b) => a - b);
}
const at = (sorted: number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

try {
  await sample(50); // warm-up: TLS session, JIT
  const idle = await sample(REQUESTS);
  const flood = spawn(process.execPath, [FLOOD, String(agentPort), String(CLIENTS), String(FRAME)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  flood.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 20_000;
  while (!out.includes('ready') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  if (!out.includes('ready')) throw new Error(`the flood did not start: ${out}`);
  const t0 = performance.now();
  const busy = await sample(REQUESTS);
  const seconds = (performance.now() - t0) / 1000;
  flood.stdin.end();
  await new Promise((r) => flood.on('close', r));
  const answered = (JSON.parse(out.trim().split('\n').pop() ?? '{}') as { answered?: number }).answered ?? 0;
  const ratio = at(busy, 0.5) / at(idle, 0.5);
  console.log(
    `web-under-flood: idle GET /api/v1/info median ${at(idle, 0.5).toFixed(2)} ms, p95 ${at(idle, 0.95).toFixed(2)} ms (${REQUESTS} requests)`,
  );
  console.log(
    `web-under-flood: with ${CLIENTS} agent-protocol clients flooding (${FRAME} check_ok a frame, ${Math.round(answered / seconds)} queries/s answered): median ${at(busy, 0.5).toFixed(2)} ms, p95 ${at(busy, 0.95).toFixed(2)} ms`,
  );
  console.log(
    `web-under-flood: median under flood against idle: ${ratio.toFixed(2)}x (goal <= ${GOAL}x: ${ratio <= GOAL ? 'PASS' : 'MISS'})`,
  );
} finally {
  keepAlive.destroy();
  await agent.stop();
}
