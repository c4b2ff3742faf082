/**
 * Benchmark: what `[/settings/source]` costs. The agent runs as its own
 * process against Debian's nginx and `git daemon` on loopback.
 * - Agent CPU (utime + stime of the agent and the git processes it waited
 *   for, /proc/<pid>/stat) per pull triggered by POST /api/v1/settings/pull
 *   over one kept-alive connection, less the CPU of a GET of
 *   /api/v1/settings/status on the same connection (the API's own cost):
 *   an unchanged file (304), a changed file (fetched, validated, cached,
 *   reloaded), an unchanged git ref (`git ls-remote` only), a new commit.
 * - Time from `git push` to the new revision in force at interval = 5 s
 *   (the status polled every 50 ms); each push follows the poll that
 *   applied the previous one, so this is the worst case: one interval plus
 *   the pull (a push at a random moment waits half an interval on average).
 * - nginx's CPU per conditional GET answered 304 (its worker's utime +
 *   stime over 2,000 requests on kept-alive connections), and from it what
 *   10,000 agents polling every 60 s cost the server.
 */
import { Agent, request } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { serve, startNginx } from '../helpers/nginx-daemon.js';
import { startGitDaemon } from '../helpers/git-daemon.js';
import { processCpuMs } from '../helpers/proc-cpu.js';
import { webRequest } from '../helpers/web-client.js';
import { waitUntil } from '../helpers/wait-until.js';
import { inRange } from '../../src/in-range.js';

const N = 40;
const PASSWORD = 'bench-pw';
const text = (i: number): string => `; revision ${i} ${'.'.repeat(i)}\n[/settings/log]\nbuffer size = ${1000 + i}\n`;

const nginx = await startNginx();
const repo = await startGitDaemon();
serve(nginx, 'agent.ini', text(0));
repo.commit({ 'agent.ini': text(0) }, 'c0');
const keepAlive = new HttpsAgent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });

async function agentOn(
  source: string,
): Promise<{ agent: AgentProcess; call: (path: string, method?: string) => Promise<string> }> {
  const agent = await startAgent({
    ini: `[/modules]\nWEBServer = enabled\n\n[/settings/default]\npassword = ${PASSWORD}\nallowed hosts = 127.0.0.1\n\n[/settings/WEB/server]\nport = 0s\nbind to = 127.0.0.1\n\n[/settings/source]\n${source}\n`,
    env: { AGENT_LOG_LEVEL: 'info' },
  });
  const port = await webPort(agent);
  const call = async (path: string, method = 'GET'): Promise<string> =>
    (
      await webRequest(`https://127.0.0.1:${port}${path}`, {
        method,
        user: 'root',
        password: PASSWORD,
        agent: keepAlive,
        timeoutMs: 30_000,
      })
    ).body;
  await waitUntil(async () => /"revision":"/.test(await call('/api/v1/settings/status')), 20_000, 'the first pull');
  return { agent, call };
}

/** Median agent CPU (ms) of `fn` over N runs, less the median of a status GET. */
async function cpuPer(
  agent: AgentProcess,
  call: (p: string, m?: string) => Promise<string>,
  fn: (i: number) => Promise<unknown>,
): Promise<{ op: number; base: number }> {
  const pid = agent.proc.pid as number;
  const op: number[] = [];
  const base: number[] = [];
  for (let i = 1; i <= N; i++) {
    let c0 = processCpuMs(pid);
    await fn(i);
    op.push(processCpuMs(pid) - c0);
    c0 = processCpuMs(pid);
    await call('/api/v1/settings/status');
    base.push(processCpuMs(pid) - c0);
  }
  return { op: mean(op), base: mean(base) };
}

/** One GET of agent.ini with If-None-Match on a kept-alive connection, its answer read to the end. */
function conditionalGet(agent: Agent, etag: string): Promise<void> {
  return new Promise<void>((res, rej) => {
    const req = request(`${nginx.base}/agent.ini`, { agent, headers: { 'if-none-match': etag } }, (r) => {
      r.resume();
      r.on('end', res);
    });
    req.on('error', rej);
    req.end();
  });
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
/** /proc counts 10 ms ticks: over N runs a mean resolves 10/N ms; a difference below that is reported as such. */
const report = (what: string, r: { op: number; base: number }): void => {
  const net = r.op - r.base;
  const shown =
    net < 10 / N
      ? `< ${(10 / N).toFixed(2)} ms (below what ${N} runs of 10 ms clock ticks resolve)`
      : `${net.toFixed(2)} ms`;
  console.log(
    `${what}: ${shown} agent CPU per pull (${r.op.toFixed(2)} ms with the API request, whose own cost is ${r.base.toFixed(2)} ms), mean of ${N}`,
  );
};

try {
  const load = inRange(loadavg(), 0).toFixed(1);
  const http = await agentOn(`url = ${nginx.base}/agent.ini\ninterval = 3600`);
  report(
    'https file, unchanged (304)',
    await cpuPer(http.agent, http.call, () => http.call('/api/v1/settings/pull', 'POST')),
  );
  report(
    'https file, changed',
    await cpuPer(http.agent, http.call, (i) => {
      serve(nginx, 'agent.ini', text(i));
      return http.call('/api/v1/settings/pull', 'POST');
    }),
  );
  await http.agent.stop();

  const git = await agentOn(`url = ${repo.url}\npath = agent.ini\nref = main\ninterval = 3600`);
  report(
    'git, unchanged ref (ls-remote)',
    await cpuPer(git.agent, git.call, () => git.call('/api/v1/settings/pull', 'POST')),
  );
  report(
    'git, new commit',
    await cpuPer(git.agent, git.call, (i) => {
      repo.commit({ 'agent.ini': text(100 + i) }, `c${i}`);
      return git.call('/api/v1/settings/pull', 'POST');
    }),
  );
  await git.agent.stop();

  const polled = await agentOn(`url = ${repo.url}\npath = agent.ini\nref = main\ninterval = 5`);
  const lags: number[] = [];
  for (let i = 0; i < 8; i++) {
    const commit = repo.commit({ 'agent.ini': text(300 + i) }, `p${i}`);
    const t0 = performance.now();
    await waitUntil(
      async () => (await polled.call('/api/v1/settings/status')).includes(`"revision":"${commit}"`),
      20_000,
      `commit ${commit} applied`,
    );
    lags.push(performance.now() - t0);
  }
  await polled.agent.stop();
  console.log(
    `git push to applied at interval = 5 s: mean ${(mean(lags) / 1000).toFixed(2)} s, max ${(Math.max(...lags) / 1000).toFixed(2)} s over ${lags.length} pushes (each push right after the poll that applied the previous one: the worst case, one interval plus the pull; a push at a random moment waits half an interval on average)`,
  );

  // nginx: its worker's CPU per 304, over kept-alive connections.
  const master = Number(readFileSync(join(nginx.dir, 'nginx.pid'), 'utf8').trim());
  const workers = readFileSync(`/proc/${master}/task/${master}/children`, 'utf8').trim().split(/\s+/).map(Number);
  const etag = await new Promise<string>((res) => {
    request(`${nginx.base}/agent.ini`, (r) => {
      r.resume();
      res(String(r.headers.etag));
    }).end();
  });
  const plain = new Agent({ keepAlive: true, maxSockets: 4 });
  const REQUESTS = 2000;
  const cpu0 = workers.reduce((a, w) => a + processCpuMs(w, true), 0);
  for (let i = 0; i < REQUESTS; i += 4) {
    await Promise.all([0, 1, 2, 3].map(() => conditionalGet(plain, etag)));
  }
  const perRequest = (workers.reduce((a, w) => a + processCpuMs(w, true), 0) - cpu0) / REQUESTS;
  const perSecond = 10_000 / 60;
  console.log(
    `nginx: ${(perRequest * 1000).toFixed(1)} µs CPU per 304 (${REQUESTS} requests, 10 ms clock ticks); 10,000 agents every 60 s = ${perSecond.toFixed(0)} requests/s = ${((perRequest * perSecond) / 10).toFixed(2)}% of one core (plain HTTP; TLS adds its handshake per new connection)`,
  );
  console.log(`load average at start: ${load}`);
} finally {
  keepAlive.destroy();
  await nginx.close();
  await repo.close();
}
