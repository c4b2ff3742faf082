/**
 * Benchmark: each host and network check answered by the resident agent
 * through its API against the monitoring-plugins process that does the same
 * job, forked the way a poller forks it.
 *
 * - Agent: `config-agent run` as a process (CheckSystem, CheckDisk, CheckNet,
 *   WEBServer over TLS on a free loopback port), asked over ONE kept-alive
 *   HTTPS connection (Basic auth) with GET
 *   /api/v1/queries/<check>/commands/execute_nagios?<args>: the time from
 *   sending the request to the whole answer read.
 * - Plugin: Debian's /usr/lib/nagios/plugins/<plugin> (procps' uptime where
 *   monitoring-plugins has no check_uptime) spawned from this
 *   process with the same Node `child_process.spawn` for every run: the
 *   time from spawn to its exit with its output read.
 * - Both ask for the same thing (the pairs below: the same host, port, URL,
 *   file system, thresholds that leave the answer OK); the network checks
 *   probe loopback peers that run in a third process (net-peers-process.ts).
 * - Rounds alternate (agent, plugin) after WARMUP runs of each, ROUNDS
 *   rounds a pair; the figures are medians; the goal is the agent's median
 *   at or below the plugin's (ratio plugin/agent >= 1). Bounded: ROUNDS
 *   rounds per pair, each run with a 10 s timeout.
 *
 *   node dist/test/bench/checks-vs-plugins.bench.js [rounds]
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { existsSync, readFileSync } from 'node:fs';
import { Agent as HttpsAgent, request } from 'node:https';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { startAgent, webPort } from '../helpers/agent-process.js';
import { hashPassword } from '../../src/web/password-hash.js';
import { median } from './median.js';

const ROUNDS = Number(process.argv[2] ?? 60);
const WARMUP = 5;
const PLUGINS = '/usr/lib/nagios/plugins';

interface Pair {
  check: string;
  args: string[];
  plugin: string;
  pluginArgs: string[];
}

const peers = spawn(process.execPath, [fileURLToPath(new URL('./net-peers-process.js', import.meta.url))], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
const ports = await new Promise<{ tcp: number; http: number; ntp: number }>((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('the peer process did not start within 10 s')), 10_000);
  createInterface({ input: peers.stdout }).once('line', (line) => {
    clearTimeout(timer);
    resolve(JSON.parse(line) as { tcp: number; http: number; ntp: number });
  });
});

const PAIRS: Pair[] = [
  { check: 'check_process', args: [], plugin: 'check_procs', pluginArgs: [] },
  {
    check: 'check_drivesize',
    args: ['drive=/', 'warn=used > 99%', 'crit=used > 99.5%'],
    plugin: 'check_disk',
    pluginArgs: ['-w', '1%', '-c', '0.5%', '-p', '/'],
  },
  {
    check: 'check_load',
    args: ['warn=load > 1000', 'crit=load > 2000'],
    plugin: 'check_load',
    pluginArgs: ['-w', '1000,1000,1000', '-c', '2000,2000,2000'],
  },
  {
    check: 'check_users',
    args: ['warn=count > 1000'],
    plugin: 'check_users',
    pluginArgs: ['-w', '1000', '-c', '2000'],
  },
  {
    check: 'check_memory',
    args: ['type=swap', 'warn=none', 'crit=none'],
    plugin: 'check_swap',
    pluginArgs: ['-n', 'ok', '-w', '10%', '-c', '5%'],
  },
  // Debian 12's monitoring-plugins (2.3.3) has no check_uptime (2.4 brought it): procps' uptime does the job there.
  {
    check: 'check_uptime',
    args: ['warn=none', 'crit=none'],
    plugin: existsSync(`${PLUGINS}/check_uptime`) ? 'check_uptime' : '/usr/bin/uptime',
    pluginArgs: [],
  },
  {
    check: 'check_ntp_offset',
    args: ['server=127.0.0.1', `port=${ports.ntp}`],
    plugin: 'check_ntp_time',
    pluginArgs: ['-H', '127.0.0.1', '-p', String(ports.ntp)],
  },
  {
    check: 'check_tcp',
    args: ['host=127.0.0.1', `port=${ports.tcp}`],
    plugin: 'check_tcp',
    pluginArgs: ['-H', '127.0.0.1', '-p', String(ports.tcp)],
  },
  {
    check: 'check_http',
    args: [`url=http://127.0.0.1:${ports.http}/`],
    plugin: 'check_http',
    pluginArgs: ['-H', '127.0.0.1', '-p', String(ports.http), '-u', '/'],
  },
];

const agent = await startAgent({
  ini: `[/modules]
CheckSystem = enabled
CheckDisk = enabled
CheckNet = enabled
WEBServer = enabled

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = root-bench-pw
allowed hosts = 127.0.0.1

[/settings/web/roles]
poller = queries.execute

[/settings/web/users/bench]
password = ${await hashPassword('bench-pw')}
role = poller
`,
  env: { AGENT_LOG_LEVEL: 'info' },
  readyTimeoutMs: 60_000,
});
const keepAlive = new HttpsAgent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
const auth = `Basic ${Buffer.from('bench:bench-pw').toString('base64')}`;
const rows: string[] = [];
try {
  const port = await webPort(agent);
  for (const pair of PAIRS) rows.push(await measure(pair, port));
  console.log(
    `checks-vs-plugins: ${ROUNDS} alternating rounds per pair after ${WARMUP} warm-up runs; ${process.version}; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
  );
  console.log('checks-vs-plugins: | agent check (API) | plugin | agent ms | plugin ms | plugin/agent | goal >= 1 |');
  for (const r of rows) console.log(`checks-vs-plugins: ${r}`);
} finally {
  keepAlive.destroy();
  await agent.stop();
  peers.stdin.end();
  peers.kill('SIGTERM');
}

async function measure(pair: Pair, port: number): Promise<string> {
  const pluginPath = pair.plugin.startsWith('/') ? pair.plugin : `${PLUGINS}/${pair.plugin}`;
  if (!existsSync(pluginPath))
    return `| ${pair.check} | ${pair.plugin} | | | not installed (apt-get install monitoring-plugins) | MISS |`;
  // NSClient++'s form of arguments in a URL: key=value pairs, each side percent-encoded.
  const query = pair.args
    .map((a) => {
      const eq = a.indexOf('=');
      return eq === -1
        ? encodeURIComponent(a)
        : `${encodeURIComponent(a.slice(0, eq))}=${encodeURIComponent(a.slice(eq + 1))}`;
    })
    .join('&');
  const path = `/api/v1/queries/${pair.check}/commands/execute_nagios${query ? `?${query}` : ''}`;
  const ask = (): Promise<{ ms: number; text: string }> => timed(() => apiGet(port, path));
  const fork = (): Promise<{ ms: number; text: string }> => timed(() => runPlugin(pluginPath, pair.pluginArgs));
  for (let i = 0; i < WARMUP; i++) {
    await ask();
    await fork();
  }
  const agentMs: number[] = [];
  const pluginMs: number[] = [];
  let lastAgent = '';
  let lastPlugin = '';
  for (let i = 0; i < ROUNDS; i++) {
    const a = await ask();
    const p = await fork();
    agentMs.push(a.ms);
    pluginMs.push(p.ms);
    lastAgent = a.text;
    lastPlugin = p.text;
  }
  const a = median(agentMs);
  const p = median(pluginMs);
  const verdict = p / a >= 1 ? 'PASS' : 'MISS';
  console.log(`checks-vs-plugins: ${pair.check}: ${firstLine(lastAgent)} | ${pair.plugin}: ${firstLine(lastPlugin)}`);
  return `| ${pair.check} ${pair.args.join(' ')} | ${pair.plugin} ${pair.pluginArgs.join(' ')} | ${a.toFixed(2)} | ${p.toFixed(2)} | ${(p / a).toFixed(2)} | ${verdict} |`;
}

async function timed(op: () => Promise<string>): Promise<{ ms: number; text: string }> {
  const t0 = performance.now();
  const text = await op();
  return { ms: performance.now() - t0, text };
}

function apiGet(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, agent: keepAlive, headers: { Authorization: auth }, timeout: 10_000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () =>
          res.statusCode === 200 ? resolve(body) : reject(new Error(`${path}: HTTP ${res.statusCode}: ${body}`)),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${path}: no answer within 10 s`)));
    req.on('error', reject);
    req.end();
  });
}

function runPlugin(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000 });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', (code) =>
      code !== null && code <= 3 ? resolve(out) : reject(new Error(`${file}: exit ${code}: ${out}`)),
    );
  });
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').slice(0, 110);
}
