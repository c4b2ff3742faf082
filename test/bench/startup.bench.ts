/**
 * Benchmark: time from spawning `agent run` to its `agent ready` line
 * (median of 10 starts) and the idle RSS one second after ready, with
 * CheckHelpers, CheckSystem, CheckDisk and WEBServer (TLS on a free loopback
 * port, with a password). The web certificate is generated once by a warm-up
 * start (timed separately) and copied into each measured start's folder, so
 * the figure is the start of an installed agent. Baseline: `node -e 0` in
 * the same run. Goals: ready in under 500 ms, idle RSS under 80 MB.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, startAgent, type AgentProcess } from '../helpers/agent-process.js';

const STARTS = 10;
const READY_GOAL_MS = 500;
const RSS_GOAL_MB = 80;

const ini = (port: number): string => `[/modules]
CheckHelpers = enabled
CheckSystem = enabled
CheckDisk = enabled
WEBServer = enabled

[/settings/WEB/server]
port = ${port}s
bind to = 127.0.0.1
password = bench-password-1
allowed hosts = 127.0.0.1
`;

// Warm-up start: generates the certificate (and warms the disk cache).
const warm0 = performance.now();
const warm = await startAgent({ ini: ini(await freePort()), env: { AGENT_LOG_LEVEL: 'info' }, readyTimeoutMs: 60_000 });
const warmMs = performance.now() - warm0;
const files = {
  'security/certificate.pem': readFileSync(join(warm.dir, 'security/certificate.pem'), 'utf8'),
  'security/certificate.key': readFileSync(join(warm.dir, 'security/certificate.key'), 'utf8'),
};
const modules = warm.logs().match(/agent ready: .*modules: (.*)/)?.[1] ?? '?';
await warm.stop();

const readyMs: number[] = [];
const rssMb: number[] = [];
for (let i = 0; i < STARTS; i++) {
  const port = await freePort();
  const t0 = performance.now();
  const agent: AgentProcess = await startAgent({ ini: ini(port), files, env: { AGENT_LOG_LEVEL: 'info' } });
  readyMs.push(performance.now() - t0);
  try {
    if (/created a self-signed certificate/.test(agent.logs())) console.log('startup: note: the agent created a certificate on a measured start');
    await sleep(1000);
    rssMb.push(await rssOf(agent.proc.pid as number));
  } finally {
    await agent.stop();
  }
}

const baseline: number[] = [];
for (let i = 0; i < STARTS; i++) baseline.push(await timeNodeE0());

const ready = median(readyMs);
const rss = median(rssMb);
const base = median(baseline);
console.log(`startup: modules loaded: ${modules}`);
console.log(`startup: first start with certificate generation: ${warmMs.toFixed(0)} ms`);
console.log(`startup: spawn to "agent ready": median ${ready.toFixed(0)} ms over ${STARTS} starts (min ${Math.min(...readyMs).toFixed(0)}, max ${Math.max(...readyMs).toFixed(0)}) (goal < ${READY_GOAL_MS} ms: ${ready < READY_GOAL_MS ? 'PASS' : 'MISS'})`);
console.log(`startup: baseline node -e 0: median ${base.toFixed(0)} ms; ratio ${(ready / base).toFixed(1)}x`);
console.log(`startup: idle RSS 1 s after ready: median ${rss.toFixed(1)} MB (min ${Math.min(...rssMb).toFixed(1)}, max ${Math.max(...rssMb).toFixed(1)}) (goal < ${RSS_GOAL_MB} MB: ${rss < RSS_GOAL_MB ? 'PASS' : 'MISS'})`);

async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

function timeNodeE0(): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('error', reject);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(performance.now() - t0);
    });
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}
