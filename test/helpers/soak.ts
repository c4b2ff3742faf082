/**
 * One soak of a running agent (issue 12, item 7), shared by the benchmark
 * (test/bench/soak.bench.ts, 60 s) and the test (test/integration/soak.test.ts,
 * 10 s): the agent runs as a process with NRPE, the agent protocol and the
 * web server (TLS on all three, `timeout = 2`), the abuse generator runs in
 * its own process (soak-abuser.ts), and this process samples one valid query
 * per port every `sampleEveryMs` (check_nrpe, an agent_query over TLS, an
 * authenticated GET of check_ok's execute route), each bounded by 10 s.
 *
 * Figures: the open file descriptors of the agent (/proc/PID/fd) and its
 * heap in use after a full garbage collection (gc-probe.ts, through the
 * inspector the agent is started with), RSS beside it, at the start (after
 * a warm-up round of the same abuse, so that lazily built code and caches
 * exist) and at the end (once the abuse stopped and the descriptors came
 * back, 30 s at most). Loopback only; every wait is bounded.
 */
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { listenerPort, startAgent, webPort } from './agent-process.js';
import { agentQuery, nrpeQuery, openFds, sleep } from './abuse-peers.js';
import type { AbuserConfig } from './soak-abuser.js';
import { webRequest } from './web-client.js';
import { inRange } from '../../src/in-range.js';

const ABUSER = fileURLToPath(new URL('./soak-abuser.js', import.meta.url));
const PROBE = fileURLToPath(new URL('./gc-probe.js', import.meta.url));
const PASSWORD = 'soak-test-password';

export type PortName = 'nrpe' | 'agent' | 'web';

export interface Sample {
  port: PortName;
  /** Seconds since the abuse started. */
  at: number;
  ms: number;
  ok: boolean;
  error?: string;
}

export interface Memory {
  heapUsed: number;
  rss: number;
}

export interface SoakResult {
  durationMs: number;
  /** The same queries on the quiet agent before the abuse (the baseline; the first round, which warms up, left out). */
  quiet: Sample[];
  samples: Sample[];
  fds: { start: number; end: number };
  memory: { start: Memory; end: Memory };
  /** What the abuse generator did (its counts). */
  abuse: Record<string, number>;
  /** The agent was still running at the end. */
  alive: boolean;
  /** The agent's log lines at level error or critical during the soak (what a defect would print). */
  errors: string[];
}

export interface SoakOptions {
  durationMs: number;
  sampleEveryMs?: number;
  warmupMs?: number;
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const agent = await startAgent({
    ini: settings(),
    env: { NODE_OPTIONS: '--inspect=127.0.0.1:0', AGENT_LOG_LEVEL: 'info' },
  });
  try {
    const ports = {
      web: await webPort(agent),
      nrpe: await listenerPort(agent, 'RemoteServer'),
      agent: await listenerPort(agent, 'AgentServer'),
    };
    const pid = agent.proc.pid as number;
    const inspector = inRange(await agent.waitForLog(/Debugger listening on (ws:\/\/\S+)/, 10_000), 1);
    const abuserConfig = (durationMs: number): AbuserConfig => ({
      ports,
      password: PASSWORD,
      settingsFile: agent.settingsFile,
      durationMs,
    });

    // The baseline of the query times: the same queries on the quiet agent, in the same run.
    const quiet: Sample[] = [];
    for (let i = 0; i < 4; i++) quiet.push(...(await sampleAll(ports, 0)));
    // Warm-up: every abuse path once, then the baseline of descriptors and memory.
    await runAbuser(abuserConfig(options.warmupMs ?? 3000));
    await settle(pid, undefined);
    const start = { fds: openFds(pid), memory: await probe(inspector) };
    await sleep(300);
    start.fds = openFds(pid);

    const mark = agent.mark();
    const begun = Date.now();
    const abuse = runAbuser(abuserConfig(options.durationMs));
    let done = false;
    void abuse.finally(() => {
      done = true;
    });
    const samples: Sample[] = [];
    // Bounded: the abuser ends after durationMs (and is killed 60 s later at the latest).
    for (let i = 0; i < 10_000 && !done; i++) {
      samples.push(...(await sampleAll(ports, (Date.now() - begun) / 1000)));
      const wait = (options.sampleEveryMs ?? 3000) - ((Date.now() - begun) % (options.sampleEveryMs ?? 3000));
      await Promise.race([sleep(wait), abuse]);
    }
    const counts = await abuse;
    const durationMs = Date.now() - begun;
    samples.push(...(await sampleAll(ports, durationMs / 1000)));

    const endFds = await settle(pid, start.fds);
    const endMemory = await probe(inspector);
    await sleep(300);
    const errors = agent
      .logs()
      .slice(mark)
      .split('\n')
      .filter((l) => /\b(error|critical)\b/.test(l.slice(24, 40)));
    return {
      durationMs,
      quiet: quiet.slice(3),
      samples,
      fds: { start: start.fds, end: Math.min(endFds, openFds(pid)) },
      memory: { start: start.memory, end: endMemory },
      abuse: counts,
      alive: agent.proc.exitCode === null,
      errors,
    };
  } finally {
    await agent.stop();
  }
}

/** One valid query on each port, at once; each bounded by 10 s. */
export async function sampleAll(ports: { web: number; nrpe: number; agent: number }, at: number): Promise<Sample[]> {
  const timed = async (port: PortName, run: () => Promise<void>): Promise<Sample> => {
    const t0 = performance.now();
    try {
      await run();
      return { port, at, ms: performance.now() - t0, ok: true };
    } catch (err) {
      return { port, at, ms: performance.now() - t0, ok: false, error: (err as Error).message };
    }
  };
  return Promise.all([
    timed('nrpe', async () => {
      const r = await nrpeQuery(ports.nrpe, 'check_ok');
      if (r.code !== 0) throw new Error(`check_nrpe exit ${r.code}: ${r.out}`);
    }),
    timed('agent', async () => {
      const message = await agentQuery(ports.agent, 'check_ok', 10_000);
      if (!/ok/i.test(message)) throw new Error(`agent_query answered ${message}`);
    }),
    timed('web', async () => {
      const r = await webRequest(`https://127.0.0.1:${ports.web}/api/v1/queries/check_ok/commands/execute`, {
        user: 'root',
        password: PASSWORD,
        timeoutMs: 10_000,
      });
      if (r.status !== 200 || r.json<{ result: number }>().result !== 0)
        throw new Error(`HTTP ${r.status}: ${r.body.slice(0, 200)}`);
    }),
  ]);
}

/** Figures of a soak as lines (the benchmark prints them, the test logs them). */
export function describeSoak(r: SoakResult): string[] {
  const mb = (n: number): string => `${(n / 1048576).toFixed(1)} MB`;
  const lines = [
    `abuse for ${(r.durationMs / 1000).toFixed(1)} s: ${Object.entries(r.abuse)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  ];
  for (const port of ['nrpe', 'agent', 'web'] as const) {
    const s = r.samples.filter((x) => x.port === port);
    const ms = s.map((x) => x.ms).sort((a, b) => a - b);
    const failed = s.filter((x) => !x.ok);
    const quiet = r.quiet.filter((x) => x.port === port).map((x) => x.ms);
    lines.push(
      `valid query on ${port.padEnd(5)}: ${s.length} samples, ${failed.length} failed, median ${ms[Math.floor(ms.length / 2)]?.toFixed(0)} ms, max ${ms[ms.length - 1]?.toFixed(0)} ms (quiet agent before: ${quiet.map((x) => x.toFixed(0)).join(', ')} ms)` +
        (failed.length > 0 ? ` (first failure at ${failed[0]?.at.toFixed(1)} s: ${failed[0]?.error})` : ''),
    );
  }
  lines.push(`open file descriptors: start ${r.fds.start}, end ${r.fds.end}`);
  const growth = (r.memory.end.heapUsed / r.memory.start.heapUsed - 1) * 100;
  lines.push(
    `heap in use after GC: start ${mb(r.memory.start.heapUsed)}, end ${mb(r.memory.end.heapUsed)} (${growth >= 0 ? '+' : ''}${growth.toFixed(1)}%); RSS start ${mb(r.memory.start.rss)}, end ${mb(r.memory.end.rss)}`,
  );
  lines.push(
    `agent ${r.alive ? 'still running' : 'EXITED'}; ${r.errors.length} error lines in its log${r.errors.length > 0 ? `, first: ${r.errors[0]}` : ''}`,
  );
  return lines;
}

// ---------------------------------------------------------------- helpers

function settings(): string {
  return `[/modules]
CheckHelpers = enabled
WEBServer = enabled
RemoteServer = enabled
AgentServer = enabled

[/settings/log]
; A small buffer: the log it keeps is part of the heap compared.
buffer size = 200

[/settings/default]
password = ${PASSWORD}
allowed hosts = 127.0.0.0/8
timeout = 2

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
max connections = 100
max connections per address = 20

[/settings/remote/server]
port = 0
bind to = 127.0.0.1
timeout = 2
max connections = 100
max connections per address = 20

[/settings/agent/server]
port = 0
bind to = 127.0.0.1
timeout = 2
max connections = 100
max connections per address = 20

[/settings/external scripts]
timeout = 60
`;
}

/** Runs the abuse generator as its own process; resolves with its counts (killed 60 s past its duration). */
function runAbuser(config: AbuserConfig): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ABUSER, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), config.durationMs + 60_000);
    child.once('exit', (code) => {
      clearTimeout(killer);
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0) return reject(new Error(`abuse generator exited ${String(code)}: ${out}`));
      resolve((JSON.parse(last) as { counts: Record<string, number> }).counts);
    });
  });
}

/** The agent's heap after GC and its RSS, through its inspector (a process of its own). */
function probe(inspector: string): Promise<Memory> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--experimental-websocket', '--no-warnings', PROBE, inspector],
      { timeout: 20_000 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`gc probe failed: ${stderr || err.message}`));
        resolve(JSON.parse(stdout.trim()) as Memory);
      },
    );
  });
}

/** Waits (30 s at most) until the agent's descriptors are back to `target` (or stop changing, without one); resolves with the count. */
async function settle(pid: number, target: number | undefined): Promise<number> {
  const until = Date.now() + 30_000;
  let last = openFds(pid);
  let stableSince = Date.now();
  while (Date.now() < until) {
    await sleep(250);
    const now = openFds(pid);
    if (target !== undefined && now <= target) return now;
    if (now !== last) {
      last = now;
      stableSince = Date.now();
    } else if (target === undefined && Date.now() - stableSince >= 3000) {
      return now;
    }
  }
  return openFds(pid);
}
