/**
 * Benchmark: how many agents one settings server carries. The servers are
 * Debian's nginx on loopback (one worker, TLS with an EC P-256 certificate)
 * serving the settings file as a static file, and git's http-backend behind
 * the same nginx through fcgiwrap (2 children, one per core). The load
 * generator is its own process (fleet-poller-process.ts) running the agent's
 * own client code for an unchanged poll: a conditional GET on a new TLS
 * connection answered 304 (fetchSettings), and `git ls-remote` over smart
 * HTTP with the commit in force (fetchGit); CONCURRENCY polls in flight.
 *
 * - Polls per second, and the servers' CPU per poll: user + system of
 *   nginx's master and worker, of fcgiwrap and of the git processes it
 *   waited for (/proc), over the run.
 * - Capacity at interval 300 s (the default of [/settings/source] is
 *   shorter; 300 s is what a fleet of hundreds would set): agents one
 *   2-core server carries = 2 cores / CPU per poll x 300 s, the CPU bound.
 * - The agent's own CPU per unchanged poll: the load generator's CPU (and
 *   its git children's) per poll, as each agent spends it once per interval.
 * - Baseline in the same run, the same servers: Debian's wrk (C) sending the
 *   same conditional GET (If-None-Match) on kept-alive connections, so the
 *   ratio shows what a new TLS connection per poll costs nginx; and for git,
 *   a bare `git ls-remote` spawned by the same loop with no agent code
 *   around it (the agent's client overhead over git's own).
 *
 *   node dist/test/bench/fleet-server.bench.js [seconds]
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { certDir } from '../helpers/agent-certs.js';
import { serve, startNginx } from '../helpers/nginx-daemon.js';
import { startGitHttp } from '../helpers/git-http.js';
import { treeCpuMs } from '../helpers/proc-cpu.js';
import { findWrk, wrk } from './wrk.js';

const SECONDS = Number(process.argv[2] ?? 5);
const CONCURRENCY = 8;
const INTERVAL_S = 300;
const CORES = 2;
const POLLER = fileURLToPath(new URL('./fleet-poller-process.js', import.meta.url));
const run = promisify(execFile);

interface PollerResult {
  polls: number;
  errors: number;
  firstError?: string;
  seconds: number;
  cpuMs: number;
}

const SETTINGS =
  '[/modules]\nCheckHelpers = enabled\nCheckSystem = enabled\n\n[/settings/default]\nallowed hosts = 127.0.0.1\n';
const certs = certDir();
const authority = certs.ca('fleet-ca');
const tls = certs.issue(authority, 'fleet-server', 'server');
const nginx = await startNginx({ tls });
const git = await startGitHttp(tls, CORES);
try {
  serve(nginx, 'agent.ini', SETTINGS);
  git.commit({ 'agent.ini': SETTINGS }, 'fleet settings');
  const nginxPid = nginx.pid();
  if (nginxPid === undefined) throw new Error('nginx is not running');

  const https = await measure('https', `${nginx.httpsBase}/agent.ini`, () => treeCpuMs(nginxPid));
  const bin = findWrk();
  let wrkLine = 'wrk is not installed (apt-get install wrk): no baseline';
  if (bin) {
    const etag = (await run('curl', ['-sk', '-D', '-', '-o', '/dev/null', `${nginx.httpsBase}/agent.ini`])).stdout
      .split('\r\n')
      .find((l) => /^etag:/i.test(l))
      ?.replace(/^etag:\s*/i, '');
    const c0 = treeCpuMs(nginxPid);
    const w = await wrk(bin, `${nginx.httpsBase}/agent.ini`, {
      threads: 1,
      connections: CONCURRENCY,
      seconds: SECONDS,
      headers: { 'If-None-Match': etag ?? '' },
    });
    const perPoll = (treeCpuMs(nginxPid) - c0) / Math.max(1, w.requests);
    wrkLine = `wrk, the same 304 on kept-alive connections: ${w.rps.toFixed(0)} polls/s, nginx ${(perPoll * 1000).toFixed(0)} µs CPU per poll; the agent's polls at ${(https.rate / w.rps).toFixed(2)}x wrk's rate, ${(https.serverMs / perPoll).toFixed(1)}x its server CPU (a TLS handshake per poll)`;
  }
  const gitRun = await measure('git', git.url, () => git.serverPids().reduce((t, p) => t + treeCpuMs(p), 0));
  const bare = await bareLsRemote(git.url, join(certs.dir, 'fleet-ca.pem'));

  console.log(
    `fleet-server: ${CONCURRENCY} polls in flight for ${SECONDS} s each; ${process.version}; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
  );
  for (const [name, r] of [
    ['nginx, static file, conditional GET (304)', https],
    ['git http-backend, ls-remote', gitRun],
  ] as const)
    console.log(
      `fleet-server: ${name}: ${r.rate.toFixed(0)} polls/s, server CPU ${r.serverMs.toFixed(2)} ms per poll -> one ${CORES}-core server carries ${Math.floor(((CORES * 1000) / r.serverMs) * INTERVAL_S).toLocaleString('en')} agents at interval ${INTERVAL_S} s; the agent's own CPU per unchanged poll ${r.clientMs.toFixed(2)} ms; errors ${r.errors}`,
    );
  console.log(`fleet-server: baseline ${wrkLine}`);
  console.log(
    `fleet-server: baseline bare git ls-remote in the same loop: ${bare.rate.toFixed(0)}/s, ${bare.clientMs.toFixed(2)} ms CPU each; the agent's git poll at ${(gitRun.rate / bare.rate).toFixed(2)}x its rate, ${(gitRun.clientMs / bare.clientMs).toFixed(2)}x its CPU`,
  );
} finally {
  await git.close();
  await nginx.close();
  certs.remove();
}

async function measure(
  mode: 'https' | 'git',
  url: string,
  serverCpu: () => number,
): Promise<{ rate: number; serverMs: number; clientMs: number; errors: number }> {
  const ca = join(certs.dir, 'fleet-ca.pem');
  await run(process.execPath, [POLLER, mode, url, ca, '2', '1']); // warm-up
  const c0 = serverCpu();
  const { stdout } = await run(process.execPath, [POLLER, mode, url, ca, String(CONCURRENCY), String(SECONDS)]);
  const serverMs = serverCpu() - c0;
  const r = JSON.parse(stdout) as PollerResult;
  if (r.polls === 0) throw new Error(`${mode}: no poll succeeded: ${r.firstError ?? 'no error'}`);
  if (r.errors > 0) console.log(`fleet-server: ${mode}: ${r.errors} polls failed, the first: ${r.firstError}`);
  return { rate: r.polls / r.seconds, serverMs: serverMs / r.polls, clientMs: r.cpuMs / r.polls, errors: r.errors };
}

/** `git ls-remote` spawned in CONCURRENCY loops for SECONDS, with no agent code around it. */
async function bareLsRemote(url: string, ca: string): Promise<{ rate: number; clientMs: number }> {
  const script = `
    const { execFile } = require('node:child_process');
    const fs = require('node:fs');
    const cpu = () => { const f = fs.readFileSync('/proc/self/stat', 'utf8').replace(/^.*\\) /s, '').split(' '); return (+f[11] + +f[12] + +f[13] + +f[14]) * 10; };
    const end = Date.now() + ${SECONDS * 1000}; let n = 0; const c0 = cpu(); const t0 = Date.now();
    const loop = () => Date.now() >= end ? Promise.resolve() : new Promise((res, rej) => execFile('git', ['ls-remote', '--', ${JSON.stringify(url)}, 'main'], { env: { ...process.env, GIT_SSL_CAINFO: ${JSON.stringify(ca)}, GIT_TERMINAL_PROMPT: '0' } }, (e) => e ? rej(e) : (n++, res()))).then(loop);
    Promise.all(Array.from({ length: ${CONCURRENCY} }, loop)).then(() => console.log(JSON.stringify({ n, s: (Date.now() - t0) / 1000, cpu: cpu() - c0 })));
  `;
  const { stdout } = await run(process.execPath, ['-e', script]);
  const r = JSON.parse(stdout) as { n: number; s: number; cpu: number };
  return { rate: r.n / r.s, clientMs: r.cpu / Math.max(1, r.n) };
}
