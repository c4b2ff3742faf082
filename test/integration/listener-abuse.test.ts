/**
 * The three listeners of a running agent (AgentServer, RemoteServer,
 * WEBServer) under the abuse issue 12 measured: idle connections by the
 * thousand, many idle connections from one address, connections that
 * trickle bytes, a frame sent in 1-byte TLS records. Each listener caps
 * connections in total and per address, closes a connection that has not
 * completed its first request within `timeout` (2 s here), logs what it
 * refused, and keeps answering valid queries from other addresses.
 * Loopback only: the attackers use 127.0.0.2 and up, honest clients
 * 127.0.0.1. The agent runs with 512 open files at most.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { listenerPort, startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import {
  agentQuery,
  agentTls,
  answerOf,
  nrpeQuery,
  openFds,
  openIdle,
  ownFdLimit,
  queryFrame,
  sleep,
  trickle,
  waitFor,
  webQuery,
} from '../helpers/abuse-peers.js';

const PASSWORD = 'abuse-test-password';
const AGENT_FD_LIMIT = 512;
const ATTACKERS = Array.from({ length: 10 }, (_, i) => `127.0.0.${i + 2}`);

void describe('listeners under abuse (agent process)', () => {
  let agent: AgentProcess;
  let pid: number;
  let web: number;
  let nrpe: number;
  let ap: number;
  let startFds: number;
  const made = new Teardown();

  before(async () => {
    agent = made.add(
      await startAgent({
        nofile: AGENT_FD_LIMIT,
        ini: `[/modules]
CheckHelpers = enabled
WEBServer = enabled
RemoteServer = enabled
AgentServer = enabled

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
`,
      }),
      (a) => a.stop(),
    );
    pid = agent.proc.pid as number;
    ap = await listenerPort(agent, 'AgentServer');
    nrpe = await listenerPort(agent, 'RemoteServer');
    web = await webPort(agent);
    startFds = openFds(pid);
  });
  after(() => made.close());

  void it('1,000 idle connections to AgentServer: fds stay bounded, web and NRPE answer, the idle ones are closed after the timeout', async () => {
    // This process needs a descriptor per connection too.
    const n = Math.min(1000, Math.floor(ownFdLimit() / 4));
    const from = agent.mark();
    const idle = await openIdle(ap, n, ATTACKERS);
    try {
      assert.ok(openFds(pid) < AGENT_FD_LIMIT - 100, `agent holds ${openFds(pid)} descriptors`);
      assert.equal(await webQuery(web, PASSWORD), 200);
      const q = await nrpeQuery(nrpe);
      assert.equal(q.code, 0, q.out);
      assert.match(q.out, /seem to be doing fine/);
      // Refused at once beyond the caps, the rest closed by the agent at the 2 s deadline.
      assert.ok(await waitFor(() => idle.closed() === n, 15_000), `${idle.closed()} of ${n} closed by the agent`);
    } finally {
      idle.destroy();
    }
    const logs = agent.logs().slice(from);
    assert.match(logs, /AgentServer: refused connection from 127\.0\.0\.\d+: 100 connections open \(max connections\)/);
    assert.match(logs, /AgentServer: closed connection from 127\.0\.0\.\d+: no complete request within 2000 ms/);
    assert.equal(await agentQuery(ap), 'OK: check_ok');
  });

  void it('600 idle NRPE connections from one address do not lock out check_nrpe from another', async () => {
    const from = agent.mark();
    const idle = await openIdle(nrpe, 600, ['127.0.0.2']);
    try {
      const q = await nrpeQuery(nrpe, 'check_ok');
      assert.equal(q.code, 0, q.out);
      assert.match(q.out, /OK: check_ok/);
    } finally {
      idle.destroy();
    }
    assert.match(
      agent.logs().slice(from),
      /RemoteServer: refused connection from 127\.0\.0\.2: 20 connections from this address open \(max connections per address\)/,
    );
  });

  void it('web: idle and slowly trickled requests are closed after the timeout, one address cannot take every slot', async () => {
    const from = agent.mark();
    const idle = await openIdle(web, 60, ['127.0.0.3']);
    const slow = tlsConnect({
      socket: netConnect({ host: '127.0.0.1', port: web, localAddress: '127.0.0.4' }),
      rejectUnauthorized: false,
    });
    slow.on('error', () => undefined);
    const slowClosed = new Promise<void>((res) => slow.once('close', () => res()));
    const slowSecure = new Promise<void>((res) => slow.once('secureConnect', () => res()));
    try {
      assert.equal(await webQuery(web, PASSWORD), 200);
      await withDeadline(slowSecure, 5000, 'no TLS handshake with the web server');
      // One header byte every 100 ms: never a complete request within 2 s, yet never idle either.
      void trickle(
        slow,
        Buffer.from(`GET /api/v1/info HTTP/1.1\r\nHost: 127.0.0.1\r\n${'X-Pad: y\r\n'.repeat(20)}\r\n`),
        100,
      );
      await withDeadline(slowClosed, 10_000, 'the trickling HTTP client was not closed');
      assert.ok(
        await waitFor(() => idle.closed() === 60, 10_000),
        `${idle.closed()} of 60 idle web connections closed`,
      );
    } finally {
      idle.destroy();
      slow.destroy();
    }
    const logs = agent.logs().slice(from);
    assert.match(
      logs,
      /WEBServer: refused connection from 127\.0\.0\.3: 20 connections from this address open \(max connections per address\)/,
    );
    assert.match(logs, /WEBServer: closed connection from 127\.0\.0\.4: no complete request within 2000 ms/);
  });

  void it('a 32 KiB frame in 1-byte TLS records is answered; a first frame trickled past the timeout is closed', async () => {
    const big = await agentTls(ap);
    try {
      // A first request in time; the big frame after it may take longer than the timeout, as long as bytes keep coming.
      assert.equal(await answerOf(big, queryFrame(6, 'check_ok')), 'OK: check_ok');
      big.removeAllListeners('data');
      big.removeAllListeners('close');
      // check_ok answers with its argument: the whole 32 KiB came through.
      const text = 'x'.repeat(32 * 1024);
      const answered = answerOf(big, undefined, 60_000);
      await trickle(big, queryFrame(7, 'check_ok', [text]));
      const answer = await answered;
      assert.ok(answer === text, `answer of ${answer.length} characters, expected the ${text.length} sent`);
    } finally {
      big.destroy();
    }
    const from = agent.mark();
    const slow = await agentTls(ap);
    slow.setNoDelay(true);
    const closed = new Promise<void>((res) => slow.once('close', () => res()));
    try {
      void trickle(slow, queryFrame(8, 'check_ok', ['y'.repeat(200)]), 50);
      await withDeadline(closed, 10_000, 'the trickling agent-protocol peer was not closed');
    } finally {
      slow.destroy();
    }
    assert.match(
      agent.logs().slice(from),
      /AgentServer: closed connection from 127\.0\.0\.1: no complete request within 2000 ms/,
    );
    assert.equal(await agentQuery(ap), 'OK: check_ok');
  });

  void it('after the abuse every valid query still answers and the descriptors are back', async () => {
    await sleep(200);
    assert.equal(await agentQuery(ap), 'OK: check_ok');
    assert.equal((await nrpeQuery(nrpe)).code, 0);
    assert.equal(await webQuery(web, PASSWORD), 200);
    assert.ok(
      await waitFor(() => openFds(pid) <= startFds, 5000),
      `agent holds ${openFds(pid)} descriptors, ${startFds} at start`,
    );
  });
});

function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, rej) => {
      timer = setTimeout(() => rej(new Error(`${what} within ${ms} ms`)), ms);
    }),
  ]);
}
