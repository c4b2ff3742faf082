/**
 * Issue 37, item 7, sockets (agent as a process, hostile servers on
 * loopback): an NSCA server that sends its init packet and then never
 * reads and never closes costs the agent one socket per target, not one per
 * result (its open files, /proc/<pid>/fd, stay bounded); results queued
 * while the server was away drain one connection at a time and at a
 * bounded rate when it comes back; an Icinga 2 server that trickles its
 * answer a byte every 300 ms is cut off at the target's `timeout`, counted
 * from the request's start, not from the last byte.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type Server, type Socket } from 'node:net';
import { freePort, startAgent } from '../helpers/agent-process.js';
import { certDir } from '../helpers/agent-certs.js';
import { Teardown } from '../helpers/teardown.js';
import { waitUntil } from '../helpers/wait-until.js';
import { defined } from '../helpers/defined.js';

const made = new Teardown();
after(() => made.close());

/** NSCA's init packet: a 128-byte IV and the time, as the daemon sends it on every connection. */
const initPacket = (): Buffer => {
  const b = Buffer.alloc(132);
  randomBytes(128).copy(b);
  b.writeUInt32BE(Math.floor(Date.now() / 1000), 128);
  return b;
};

/** A TCP server on 127.0.0.1 that counts connections open at once and opened per second. */
interface Counted {
  server: Server;
  open: number;
  maxOpen: number;
  total: number;
  /** Connections accepted in each second since the first one. */
  perSecond: number[];
}

function countedServer(onSocket: (s: Socket) => void): Counted {
  const c: Counted = { server: createServer(), open: 0, maxOpen: 0, total: 0, perSecond: [] };
  let first = 0;
  const sockets = new Set<Socket>();
  c.server.on('connection', (s) => {
    sockets.add(s);
    c.open++;
    c.total++;
    c.maxOpen = Math.max(c.maxOpen, c.open);
    first ||= performance.now();
    const second = Math.floor((performance.now() - first) / 1000);
    c.perSecond[second] = (c.perSecond[second] ?? 0) + 1;
    s.on('error', () => undefined);
    s.on('close', () => {
      c.open--;
      sockets.delete(s);
    });
    onSocket(s);
  });
  made.add(c, () => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((resolve) => c.server.close(() => resolve()));
  });
  return c;
}

const listen = (server: Server, port = 0): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const a = server.address();
      resolve(typeof a === 'object' && a ? a.port : 0);
    });
  });

const openFiles = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

/** Schedules that submit check_ok to NSCA target `t` every `interval`. */
const schedules = (count: number, interval: string): string =>
  Array.from(
    { length: count },
    (_, i) =>
      `[/settings/scheduler/schedules/s${i}]\ncommand = check_ok\nalias = svc${i}\ninterval = ${interval}\nrandomness = 0%\ntarget = t\n`,
  ).join('\n');

const nscaAgent = async (port: number, extra: string): Promise<ReturnType<typeof startAgent>> =>
  startAgent({
    ini: `[/modules]
CheckHelpers = enabled
Scheduler = enabled
NSCAClient = enabled

[/settings/NSCA/client]
hostname = testhost
queue size = 2000

[/settings/NSCA/client/targets/t]
address = 127.0.0.1:${port}
encryption = none
payload length = 512
timeout = 2
retries = 0

${extra}`,
  });

void describe('bounded sockets (agent process, hostile servers on loopback)', () => {
  void it('an NSCA server that never reads and never closes costs one socket per target, not one per result', async () => {
    // Takes every connection, sends the init packet, then neither reads nor closes.
    const hostile = countedServer((s) => {
      s.pause();
      s.write(initPacket());
    });
    const port = await listen(hostile.server);
    const agent = made.add(await nscaAgent(port, schedules(10, '200ms')), (a) => a.stop());
    const pid = defined(agent.proc.pid, 'the agent pid');
    const before = openFiles(pid);
    let most = before;
    // 50 results a second for 8 s: 400 sends, each of which kept a socket before the fix.
    const end = performance.now() + 8000;
    while (performance.now() < end) {
      most = Math.max(most, openFiles(pid));
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(hostile.total >= 3, `the agent kept sending (${hostile.total} connections)`);
    // (The server, which never reads, cannot see the agent close: its own count says nothing here.)
    assert.ok(most <= before + 10, `open files of the agent: ${before} at first, at most ${most}`);
  });

  void it('results queued while the NSCA server was away drain one connection at a time, at most 100 a second', async () => {
    const port = await freePort();
    // 200 results a second queue while nothing listens on the port.
    const agent = made.add(await nscaAgent(port, schedules(20, '100ms')), (a) => a.stop());
    await agent.waitForLog(/sending to target t failed/, 20_000);
    await new Promise((r) => setTimeout(r, 3000));
    // Back: a server that behaves as nsca does (init packet, read to the end, close at once).
    const back = countedServer((s) => {
      s.write(initPacket());
      s.on('data', () => undefined);
      s.on('end', () => s.end());
    });
    await listen(back.server, port);
    await waitUntil(() => back.total >= 300, 60_000, '300 connections after the server came back');
    assert.ok(back.maxOpen <= 2, `connections open at once: ${back.maxOpen}`);
    const fastest = Math.max(...back.perSecond.map((n) => n));
    assert.ok(fastest <= 110, `connections in one second, at most: ${fastest} (${back.perSecond.join(', ')})`);
  });

  void it('an Icinga 2 server that trickles its answer is cut off at timeout, counted from the start', async () => {
    const certs = made.add(certDir(), (c) => c.remove());
    const ca = certs.ca('ca');
    const tls = certs.issue(ca, 'icinga', 'server');
    const held: number[] = [];
    const server = createHttpsServer({ cert: readFileSync(tls.cert), key: readFileSync(tls.key) }, (req, res) => {
      const start = performance.now();
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      // One byte every 300 ms, for 60 s: never silent for the idle timeout, never done.
      const timer = setInterval(() => res.write(' '), 300);
      const stop = setTimeout(() => res.end('{}'), 60_000);
      res.on('close', () => {
        clearInterval(timer);
        clearTimeout(stop);
        held.push(performance.now() - start);
      });
    });
    made.add(server, (s) => {
      s.closeAllConnections();
      return new Promise<void>((resolve) => s.close(() => resolve()));
    });
    const port = await new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
    );
    const agent = made.add(
      await startAgent({
        ini: `[/modules]
CheckHelpers = enabled
Scheduler = enabled
IcingaClient = enabled

[/settings/icinga/client]
hostname = testhost

[/settings/icinga/client/targets/default]
address = 127.0.0.1:${port}
ca = ${ca.cert}
username = agent
password = secret
timeout = 2
retries = 0

[/settings/scheduler/schedules/once]
command = check_ok
interval = 1h
randomness = 0%
channel = ICINGA
`,
      }),
      (a) => a.stop(),
    );
    await waitUntil(() => held.length >= 1, 20_000, 'the agent giving up on the trickling answer');
    const first = defined(held[0], 'how long the first request was held');
    assert.ok(first < 4000, `the request was held ${Math.round(first)} ms with timeout = 2`);
    await agent.waitForLog(/no complete answer within 2 s/, 5000);
  });
});
