/**
 * Passive checks (issue 28, item 5), against the real servers on loopback.
 *
 * Both sides of each comparison do the same work on the wire: they deliver
 * the same number of passive results to the same daemon, with the same
 * encryption (nsca method 14, AES with a 32-byte key, NSClient++'s aes),
 * the same packet size, the same number of results per connection, and one
 * connection at a time; completion is observed the same way for both (the
 * results counted where the server records them: lines in nsca's command
 * file, Icinga 2's log lines of answered process-check-result requests).
 * What differs is what each side is, which is the point of the figure: on
 * one side the agent, started as a process, whose Scheduler runs check_ok
 * for each result (R schedules due at once, threads 50) and whose queue
 * sends them; on the other a program started per connection, as a cron
 * job or a shell loop pushing results does:
 *
 * 1. NSCA, 100 results per connection (payload 4096): the agent vs
 *    `send_nsca` processes each given 100 lines on stdin.
 * 2. NSCA, one result per connection (payload 512, nsca 2.7's packet): the
 *    agent vs one `send_nsca --legacy-2-7-mode` process per result.
 * 3. Icinga 2, one result per request (POST /v1/actions/process-check-result
 *    over TLS verified against Icinga's CA): the agent (connection kept
 *    alive) vs one `curl` process per result (a TLS handshake each).
 * 4. Agent CPU per scheduled check at 1,000 schedules (interval 10 s,
 *    randomness 100%, results sent to nsca in batches): the agent's CPU time
 *    (utime + stime from /proc) over a measured window after a warm-up
 *    cycle, divided by the results the daemon recorded in that window.
 *
 * Rounds alternate (ours, theirs, ours, theirs); the median of the rounds
 * is printed. Sizes: BENCH_PASSIVE_RESULTS (default 2000; a quarter of it
 * for the one-per-connection rows), BENCH_PASSIVE_ROUNDS (2),
 * BENCH_PASSIVE_SECONDS (30, the CPU window); BENCH_PASSIVE_ONLY=nsca,legacy,cpu,icinga
 * runs only those parts. Run: npm run bench -- passive
 *
 * The one-per-connection NSCA row is bound by the daemon: nsca 2.10 reads
 * 4304 bytes per packet and takes a 720-byte one only when the connection
 * ends, which costs it about 0.6 s per connection here for both sides; the
 * ratio of that row says little about the clients.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { SEND_NSCA, startNscaDaemon, type NscaDaemon } from '../helpers/nsca-daemon.js';
import { API_PASSWORD, API_USER, startIcingaDaemon, type IcingaDaemon } from '../helpers/icinga-daemon.js';
import { processCpuMs } from '../helpers/proc-cpu.js';
import { waitUntil } from '../helpers/wait-until.js';
import { inRange } from '../../src/in-range.js';

const RESULTS = Number(process.env.BENCH_PASSIVE_RESULTS ?? 2000);
const ROUNDS = Number(process.env.BENCH_PASSIVE_ROUNDS ?? 2);
const CPU_SECONDS = Number(process.env.BENCH_PASSIVE_SECONDS ?? 30);
const PASSWORD = 'bench password';
const dir = mkdtempSync(join(tmpdir(), 'bench-passive-'));

/** R schedules due at once (randomness 0%, interval far away) under one default. */
function schedules(r: number, defaults: string): string {
  const one = Array.from({ length: r }, (_, i) => `s${i} = check_ok "result ${i}|'v'=${i}"`).join('\n');
  return `[/settings/scheduler]\nthreads = 50\n\n[/settings/scheduler/schedules/default]\ninterval = 1h\nrandomness = 0%\n${defaults}\n\n[/settings/scheduler/schedules]\n${one}\n`;
}

async function oursNsca(d: NscaDaemon, r: number, payload: number): Promise<number> {
  const start = d.lines().length;
  const agent = await startAgent({
    ini: `${schedules(r, 'channel = NSCA')}\n[/settings/NSCA/client]\nhostname = benchhost\nqueue size = ${r}\n\n[/settings/NSCA/client/targets/default]\naddress = 127.0.0.1:${d.port}\nencryption = aes\npassword = ${PASSWORD}\npayload length = ${payload}\n\n[/modules]\nCheckHelpers = enabled\nNSCAClient = enabled\nScheduler = enabled\n`,
    env: { AGENT_LOG_LEVEL: 'info' },
  });
  const t0 = performance.now();
  try {
    await waitUntil(() => d.lines().length >= start + r, 300_000, `${r} results at nsca`);
    return performance.now() - t0;
  } finally {
    await agent.stop();
  }
}

async function theirsNsca(d: NscaDaemon, r: number, perConnection: number, legacy: boolean): Promise<number> {
  const cfg = join(dir, 'send_nsca.cfg');
  writeFileSync(cfg, `password=${PASSWORD}\nencryption_method=14\n`);
  const start = d.lines().length;
  const t0 = performance.now();
  for (let sent = 0; sent < r; sent += perConnection) {
    // send_nsca 2.10 reads one result per block, blocks ended by ETB (\x17); a newline is part of the output.
    const lines = Array.from(
      { length: Math.min(perConnection, r - sent) },
      (_, i) => `benchhost\ts${sent + i}\t0\tresult ${sent + i}|'v'=${sent + i}\x17`,
    ).join('');
    const code = await run(
      SEND_NSCA,
      ['-H', '127.0.0.1', '-p', String(d.port), '-c', cfg, ...(legacy ? ['--legacy-2-7-mode'] : [])],
      lines,
    );
    if (code !== 0) throw new Error(`send_nsca exited with ${code}`);
  }
  await waitUntil(() => d.lines().length >= start + r, 300_000, `${r} results at nsca`);
  return performance.now() - t0;
}

const answered = (i: IcingaDaemon): number =>
  (i.log().match(/Request: POST \/v1\/actions\/process-check-result .*status: OK/g) ?? []).length;

async function oursIcinga(i: IcingaDaemon, r: number): Promise<number> {
  const start = answered(i);
  const agent = await startAgent({
    ini: `${schedules(r, 'channel = ICINGA\nalias = passive')}\n[/settings/icinga/client]\nhostname = benchhost\nqueue size = ${r}\n\n[/settings/icinga/client/targets/default]\naddress = localhost:${i.port}\nusername = ${API_USER}\npassword = ${API_PASSWORD}\nca = ${i.ca}\n\n[/modules]\nCheckHelpers = enabled\nIcingaClient = enabled\nScheduler = enabled\n`,
    env: { AGENT_LOG_LEVEL: 'info' },
  });
  const t0 = performance.now();
  try {
    await waitUntil(() => answered(i) >= start + r, 300_000, `${r} results at Icinga 2`);
    return performance.now() - t0;
  } finally {
    await agent.stop();
  }
}

async function theirsIcinga(i: IcingaDaemon, r: number): Promise<number> {
  const start = answered(i);
  const t0 = performance.now();
  for (let n = 0; n < r; n++) {
    const body = JSON.stringify({
      type: 'Service',
      filter: 'host.name=="benchhost" && service.name=="passive"',
      exit_status: 0,
      plugin_output: `result ${n}`,
      performance_data: [`'v'=${n}`],
      check_source: 'bench',
    });
    const code = await run('curl', [
      '-s',
      '-o',
      '/dev/null',
      '-f',
      '--cacert',
      i.ca,
      '-u',
      `${API_USER}:${API_PASSWORD}`,
      '-H',
      'Accept: application/json',
      '-X',
      'POST',
      '-d',
      body,
      `https://localhost:${i.port}/v1/actions/process-check-result`,
    ]);
    if (code !== 0) throw new Error(`curl exited with ${code}`);
  }
  await waitUntil(() => answered(i) >= start + r, 300_000, `${r} results at Icinga 2`);
  return performance.now() - t0;
}

async function cpuPerCheck(d: NscaDaemon): Promise<{ perCheckUs: number; checks: number; cpuMs: number }> {
  const n = 1000;
  const ini = `[/settings/scheduler/schedules/default]\ninterval = 10s\nrandomness = 100%\nchannel = NSCA\n\n[/settings/scheduler/schedules]\n${Array.from({ length: n }, (_, i) => `c${i} = check_ok "steady ${i}|'v'=${i}"`).join('\n')}\n\n[/settings/NSCA/client/targets/default]\naddress = 127.0.0.1:${d.port}\nencryption = aes\npassword = ${PASSWORD}\npayload length = 4096\n\n[/modules]\nCheckHelpers = enabled\nNSCAClient = enabled\nScheduler = enabled\n`;
  const agent: AgentProcess = await startAgent({ ini, env: { AGENT_LOG_LEVEL: 'info' } });
  try {
    // Warm-up: the first cycle (first runs spread over 10 s) and one more.
    await new Promise((r) => setTimeout(r, 20_000));
    const lines0 = d.lines().length;
    const cpu0 = processCpuMs(agent.proc.pid!, true);
    await new Promise((r) => setTimeout(r, CPU_SECONDS * 1000));
    const cpuMs = processCpuMs(agent.proc.pid!, true) - cpu0;
    const checks = d.lines().length - lines0;
    return { perCheckUs: (cpuMs * 1000) / Math.max(1, checks), checks, cpuMs };
  } finally {
    await agent.stop();
  }
}

function run(file: string, args: string[], input = ''): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const p = spawn(file, args, { stdio: ['pipe', 'ignore', 'ignore'] });
    p.on('error', reject);
    p.on('close', resolve);
    p.stdin.end(input);
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return inRange(s, Math.floor((s.length - 1) / 2));
}

async function compare(
  label: string,
  r: number,
  ours: () => Promise<number>,
  theirs: () => Promise<number>,
  theirName: string,
): Promise<void> {
  const o: number[] = [];
  const t: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    o.push(await ours());
    t.push(await theirs());
  }
  const rate = (ms: number): number => (r * 1000) / ms;
  console.log(
    `passive ${label}: ${r} results; agent ${rate(median(o)).toFixed(0)}/s (${o.map((x) => x.toFixed(0)).join(', ')} ms), ${theirName} ${rate(median(t)).toFixed(0)}/s (${t.map((x) => x.toFixed(0)).join(', ')} ms); agent / ${theirName} = ${(median(t) / median(o)).toFixed(2)}x; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
  );
}

const ONLY = new Set((process.env.BENCH_PASSIVE_ONLY ?? 'nsca,legacy,cpu,icinga').split(',').map((s) => s.trim()));
const nsca = await startNscaDaemon({ method: 14, password: PASSWORD });
try {
  if (ONLY.has('nsca'))
    await compare(
      'NSCA, 100 per connection (payload 4096)',
      RESULTS,
      () => oursNsca(nsca, RESULTS, 4096),
      () => theirsNsca(nsca, RESULTS, 100, false),
      'send_nsca',
    );
  const single = Math.max(1, Math.floor(RESULTS / 40));
  if (ONLY.has('legacy'))
    await compare(
      'NSCA, one per connection (payload 512)',
      single,
      () => oursNsca(nsca, single, 512),
      () => theirsNsca(nsca, single, 1, true),
      'send_nsca --legacy-2-7-mode',
    );
  const cpu = ONLY.has('cpu') ? await cpuPerCheck(nsca) : undefined;
  if (cpu)
    console.log(
      `passive CPU at 1,000 schedules (interval 10 s, to nsca): ${cpu.perCheckUs.toFixed(0)} µs of agent CPU per scheduled check (${cpu.cpuMs.toFixed(0)} ms over ${CPU_SECONDS} s, ${cpu.checks} results delivered)`,
    );
} finally {
  await nsca.close();
}
const icinga = ONLY.has('icinga')
  ? await startIcingaDaemon({ hosts: ['benchhost'], services: [['benchhost', 'passive']] })
  : undefined;
try {
  const r = Math.max(1, Math.floor(RESULTS / 4));
  if (icinga)
    await compare(
      'Icinga 2, one per request',
      r,
      () => oursIcinga(icinga, r),
      () => theirsIcinga(icinga, r),
      'curl',
    );
} finally {
  await icinga?.stop();
  rmSync(dir, { recursive: true, force: true });
}
