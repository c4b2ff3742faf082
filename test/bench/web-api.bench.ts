/**
 * Benchmark: GET /api/v1/info over HTTPS with Basic auth through the real
 * web app (allowed hosts, credential check with its cache, privilege,
 * metrics), against a bare node:https server answering the same JSON, in
 * the same run. 50 concurrent keep-alive connections, a fixed time per
 * target. Prints requests per second and p99 latency for both and the ratio
 * (agent / bare; goal 0.7 or better).
 *
 *   node dist/test/bench/web-api.bench.js [seconds]
 */
import { createServer, Agent, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { createCore } from '../../src/core/core-impl.js';
import type { AgentControl, ReconcilerStatus } from '../../src/core/control.js';
import { sink } from '../../src/log.js';
import { loadSettingsText } from '../../src/settings/load.js';
import type { Snapshot } from '../../src/settings/snapshot.js';
import { buildApp } from '../../src/web/app.js';
import { hashPassword } from '../../src/web/password-hash.js';

const SECONDS = Number(process.argv[2] ?? 5);
const CONNECTIONS = 50;

interface Figures {
  rps: number;
  p99: number;
  requests: number;
  errors: number;
  elapsed: number;
  latencies: number[];
}

async function main(): Promise<void> {
  sink.consoleLevel = 'error';
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', algorithm: 'sha256' });
  const tls = { cert: pems.cert, key: pems.private };
  const snapshot = await benchSnapshot();
  const info = { name: 'config-agent', version: '0.0.0', started: new Date().toISOString(), pid: process.pid, settings: snapshot.file };
  const core = createCore({ settings: () => snapshot, control: benchControl(info) });
  const web = buildApp({ core, getSnapshot: () => snapshot });

  const bareBody = JSON.stringify({ ...info, version_url: 'x', status_url: 'x' });
  const bare = createServer({ ...tls, noDelay: true }, (_req, res) => {
    const body = Buffer.from(bareBody);
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(body.length) });
    res.end(body);
  });
  // The same server options as the WEBServer module uses.
  const agentServer = createServer({ ...tls, noDelay: true }, web.handler);
  const header = `Basic ${Buffer.from('bench:bench-pw').toString('base64')}`;
  try {
    const bareUrl = await listen(bare);
    const agentUrl = await listen(agentServer);
    // Warm up both (TLS sessions, JIT, the credential cache).
    await load(bareUrl, header, 0.5);
    await load(agentUrl, header, 0.5);
    // Alternate one-second rounds so that both see the same machine load.
    const bareRounds: Figures[] = [];
    const agentRounds: Figures[] = [];
    for (let i = 0; i < SECONDS; i++) {
      bareRounds.push(await load(bareUrl, header, 1));
      agentRounds.push(await load(agentUrl, header, 1));
    }
    const b = combine(bareRounds);
    const a = combine(agentRounds);
    const row = (name: string, f: Figures): string =>
      `${name.padEnd(22)} ${f.rps.toFixed(0).padStart(8)} req/s   p99 ${f.p99.toFixed(2).padStart(7)} ms   (${f.requests} requests, ${f.errors} errors)`;
    console.log(`GET /api/v1/info, HTTPS, Basic auth, ${CONNECTIONS} keep-alive connections, ${SECONDS} alternating 1 s rounds each`);
    console.log(row('bare node:https', b));
    console.log(row('agent web app', a));
    console.log(`ratio agent/bare: ${(a.rps / b.rps).toFixed(2)} (goal >= 0.70); p99 ratio ${(a.p99 / b.p99).toFixed(2)}`);
  } finally {
    await Promise.all([close(bare), close(agentServer)]);
  }
}

/** Settings with one hashed user whose role grants info.get, as add-user writes it. */
async function benchSnapshot(): Promise<Snapshot> {
  const text = `[/modules]\nWEBServer = enabled\n\n[/settings/WEB/server]\nport = 0s\npassword = root-pw\nallowed hosts = 127.0.0.1\n\n[/settings/web/roles]\nreader = info.get\n\n[/settings/web/users/bench]\npassword = ${await hashPassword('bench-pw')}\nrole = reader\n`;
  const loaded = loadSettingsText(text, '/tmp/bench-agent.ini');
  if (!loaded.ok) throw new Error(`bench settings invalid: ${JSON.stringify(loaded.problems)}`);
  return loaded.snapshot;
}

function benchControl(info: ReturnType<AgentControl['info']>): AgentControl {
  const status: ReconcilerStatus = { file: info.settings, fileHash: '', appliedHash: '', lastReload: null, lastResult: 'none', problems: [], warnings: [], reloads: { ok: 0, invalid: 0, partial: 0 }, modules: [], drift: [] };
  const none = async (): Promise<never> => {
    throw new Error('not used by the benchmark');
  };
  return {
    modules: () => [],
    module: () => undefined,
    load: none,
    unload: none,
    enable: none,
    disable: none,
    status: () => status,
    reload: async () => status,
    editSettings: none,
    logs: () => [],
    logStatus: () => ({ errors: 0, lastError: "" }),
    clearLogs: () => 0,
    info: () => info,
  };
}

/** Closed-loop load: CONNECTIONS workers, each one request at a time, for `seconds`. */
async function load(url: string, header: string, seconds: number): Promise<Figures> {
  const agent = new Agent({ keepAlive: true, noDelay: true, maxSockets: CONNECTIONS, rejectUnauthorized: false });
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const worker = async (): Promise<void> => {
    // Bounded by time, and by count as a safety net.
    for (let i = 0; i < 5_000_000 && performance.now() < end; i++) {
      const t = performance.now();
      const ok = await once(url, header, agent);
      if (ok) latencies.push(performance.now() - t);
      else errors++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((x, y) => x - y);
  const p99 = latencies.length > 0 ? (latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] as number) : NaN;
  return { rps: latencies.length / elapsed, p99, requests: latencies.length, errors, elapsed, latencies };
}

/** Figures of several rounds together. */
function combine(rounds: readonly Figures[]): Figures {
  const latencies = rounds.flatMap((r) => r.latencies).sort((x, y) => x - y);
  const elapsed = rounds.reduce((t, r) => t + r.elapsed, 0);
  const errors = rounds.reduce((t, r) => t + r.errors, 0);
  const p99 = latencies.length > 0 ? (latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] as number) : NaN;
  return { rps: latencies.length / elapsed, p99, requests: latencies.length, errors, elapsed, latencies };
}

function once(url: string, header: string, agent: Agent): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(`${url}/api/v1/info`, { agent, headers: { authorization: header }, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
      res.on('error', () => resolve(false));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`https://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

await main();
