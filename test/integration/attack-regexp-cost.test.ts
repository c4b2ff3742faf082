/**
 * A bounded cost for every pattern (issue 37, item 4): linear-time RE2 is
 * not cheap when the program is huge. `.{1000}` written 73 times (511
 * characters, a 73,000-instruction program) matched against a string
 * literal of the request, per row of check_index, held the event loop for
 * minutes. Sent over every channel (the web API, NRPE with and without
 * `allow nasty characters`, the agent protocol, check_http over a 1 MB
 * body), each attack answers UNKNOWN in words within 3 s, the web's
 * `/core/isalive` never waits a second meanwhile, and SIGTERM stops the
 * agent within 2 s of the heaviest one.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { listenerPort, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { startWebAgent } from '../helpers/nscp-clients.js';
import { nrpeRequest } from '../../src/protocols/nrpe/client.js';
import { agentQuery } from '../helpers/abuse-peers.js';
import { httpPeer, type Peer } from '../helpers/net-peers.js';
import { webRequest } from '../helpers/web-client.js';
import { Teardown } from '../helpers/teardown.js';

const PASSWORD = 'root-secret';
/** The acceptance bounds of the issue. */
const ANSWER_MS = 3000;
const STALL_MS = 1000;
const SIGTERM_MS = 2000;

/** The patterns of the attack: huge repetitions; the largest program the limits let through; one without nasty characters. */
const REPEAT_BOMB = '.{1000}'.repeat(73);
const WIDE = `(?i)${'.{100}'.repeat(19)}Z`;
const PLAIN = `(?i)${'.'.repeat(500)}Z`;
/** A filter that matches `pattern` against a string literal of `length` characters, once per row. */
const bomb = (pattern: string, length: number): string => `filter="${'x'.repeat(length)}" regexp "${pattern}"`;
/** The words of an answer that refused a pattern for its cost. */
const IN_WORDS =
  /repeats 1000 times; a repetition count above 100 is not allowed|would cost \d+ units|patterns of this request have taken more than|patterns matched since the agent last served its sockets/;

void describe('every pattern has a bounded cost, on every channel', () => {
  let agent: AgentProcess;
  let base = '';
  let nrpePort = 0;
  let agentPort = 0;
  let nasty: AgentProcess;
  let nastyPort = 0;
  let body: Peer;
  const made = new Teardown();
  /** Latencies of /core/isalive, polled while the attacks run. */
  const stalls: number[] = [];
  let polling = true;
  let poller: Promise<void> = Promise.resolve();

  before(async () => {
    const megabyte = 'x'.repeat(1024 * 1024);
    body = made.add(await httpPeer((_req, res) => res.writeHead(200).end(megabyte)), (p) => p.close());
    ({ agent, base } = made.add(
      await startWebAgent({
        ini: `[/modules]
CheckHelpers = enabled
CheckNet = enabled
RemoteServer = enabled
AgentServer = enabled
WEBServer = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = ${PASSWORD}

[/settings/remote/server]
port = 0
bind to = 127.0.0.1
use ssl = 0
allow arguments = 1
allowed queries = check_*

[/settings/agent/server]
port = 0
bind to = 127.0.0.1
`,
      }),
      (w) => w.agent.stop(),
    ));
    nrpePort = await listenerPort(agent, 'RemoteServer');
    agentPort = await listenerPort(agent, 'AgentServer');
    nasty = made.add(
      await startAgent({
        ini: `[/modules]
CheckHelpers = enabled
RemoteServer = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/remote/server]
port = 0
bind to = 127.0.0.1
use ssl = 0
allow arguments = 1
allow nasty characters = true
allowed queries = check_*
`,
      }),
      (a) => a.stop(),
    );
    nastyPort = await listenerPort(nasty, 'RemoteServer');
    poller = (async () => {
      while (polling) {
        const t0 = performance.now();
        await webRequest(`${base}/core/isalive`, { timeoutMs: 30_000 }).catch(() => undefined);
        stalls.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
  });
  after(async () => {
    polling = false;
    await poller;
    await made.close();
  });

  /** Run `attempt`, assert it answered within the bound and in words; `what` names it in failures. */
  async function bounded(what: string, attempt: () => Promise<{ code: number; out: string }>): Promise<void> {
    const t0 = performance.now();
    const r = await attempt();
    const ms = performance.now() - t0;
    assert.ok(ms < ANSWER_MS, `${what} answered after ${Math.round(ms)} ms`);
    assert.equal(r.code, 3, `${what}: ${r.out}`);
    assert.match(r.out, IN_WORDS, what);
  }

  async function web(query: string, args: string[]): Promise<{ code: number; out: string }> {
    const qs = args.map((a) => {
      const eq = a.indexOf('=');
      return `${a.slice(0, eq)}=${encodeURIComponent(a.slice(eq + 1))}`;
    });
    const res = await webRequest(`${base}/api/v1/queries/${query}/commands/execute?${qs.join('&')}`, {
      user: 'root',
      password: PASSWORD,
      timeoutMs: 10_000,
    });
    assert.equal(res.status, 200, res.body);
    const answer = res.json<{ result: number; lines: { message: string }[] }>();
    return { code: answer.result, out: answer.lines.map((l) => l.message).join('\n') };
  }

  /** One NRPE v4 packet of any length (check_nrpe cuts its arguments at about 1 KB; an attacker does not). */
  const nrpe = async (port: number, query: string, args: string[]): Promise<{ code: number; out: string }> => {
    const options = { host: '127.0.0.1', port, timeoutMs: 10_000, retry: 0, version: 4 as const, payloadLength: 1024 };
    const answer = await nrpeRequest(options, [query, ...args].join('!'));
    return { code: answer.result, out: answer.text };
  };

  const agentProtocol = async (query: string, args: string[]): Promise<{ code: number; out: string }> => {
    const out = await agentQuery(agentPort, query, 10_000, args);
    // The message alone crosses back here; every refusal of a cost is an UNKNOWN.
    return { code: IN_WORDS.test(out) ? 3 : -1, out };
  };

  void it('over the web API', async () => {
    for (const [pattern, length] of [
      [REPEAT_BOMB, 6000],
      [WIDE, 6000],
      [PLAIN, 6000],
    ] as const)
      await bounded(`web ${pattern.slice(0, 12)}`, () => web('check_index', [bomb(pattern, length)]));
  });

  void it('over NRPE without nasty characters (a pattern without them)', async () => {
    await bounded('nrpe plain', () => nrpe(nrpePort, 'check_index', [bomb(PLAIN, 10_000)]));
  });

  void it('over NRPE with nasty characters', async () => {
    for (const pattern of [REPEAT_BOMB, WIDE, PLAIN])
      await bounded(`nrpe nasty ${pattern.slice(0, 12)}`, () =>
        nrpe(nastyPort, 'check_index', [bomb(pattern, 10_000)]),
      );
  });

  void it('over the agent protocol (15 KB of text)', async () => {
    for (const pattern of [REPEAT_BOMB, WIDE, PLAIN])
      await bounded(`agent ${pattern.slice(0, 12)}`, () => agentProtocol('check_index', [bomb(pattern, 15_000)]));
  });

  void it('check_http match-regex over a 1 MB body', async () => {
    for (const pattern of [WIDE, `(?i)${'.{100}'.repeat(2)}Z`])
      await bounded(`check_http ${pattern.slice(0, 12)}`, () =>
        web('check_http', [`url=http://127.0.0.1:${body.port}/`, `match-regex=${pattern}`]),
      );
    // A small pattern over the same body still runs.
    const fine = await web('check_http', [`url=http://127.0.0.1:${body.port}/`, 'match-regex=x{3}$']);
    assert.equal(fine.code, 0, fine.out);
  });

  void it('kept the web answering: /core/isalive never waited a second', () => {
    assert.ok(stalls.length > 0, 'isalive was polled');
    const worst = Math.max(...stalls);
    assert.ok(worst < STALL_MS, `/core/isalive waited ${Math.round(worst)} ms`);
  });

  void it('stops on SIGTERM within 2 s of the heaviest attack', async () => {
    polling = false;
    await poller;
    const pending = agentQuery(agentPort, 'check_index', 30_000, [bomb(WIDE, 15_000)]).catch(() => '');
    await new Promise((r) => setTimeout(r, 100));
    const t0 = performance.now();
    agent.proc.kill('SIGTERM');
    await agent.exited;
    const ms = performance.now() - t0;
    assert.ok(ms < SIGTERM_MS, `the agent took ${Math.round(ms)} ms to stop`);
    await pending;
  });
});
