/**
 * Bounded work, cancelled when nobody waits (issue 25, item 4), against a
 * real agent: NRPE peers that leave before their script ends get it
 * killed; agent-protocol peers that leave get their running and queued
 * scripts cancelled, so the slots are free at once for the next query; a
 * full script queue refuses at once with UNKNOWN and counts it in the
 * metrics; an agent-protocol frame carries at most `max queries per frame`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { listenerPort, type AgentProcess } from '../helpers/agent-process.js';
import { startWebAgent } from '../helpers/nscp-clients.js';
import { Teardown } from '../helpers/teardown.js';
import { CHECK_NRPE } from '../helpers/nrpe-daemon.js';
import { waitFor } from '../helpers/abuse-peers.js';
import { webRequest } from '../helpers/web-client.js';
import { FrameReader } from '../../src/protocols/agent/frame-reader.js';
import { encodeFrame, FrameKind, type Frame } from '../../src/protocols/agent/framing.js';
import { decode, encode } from '../../src/core/plugin/codec.js';

let agent: AgentProcess;
let base: string;
let ca: string;
let nrpePort: number;
let agentPort: number;
const made = new Teardown();

/** check_nrpe as a child process (killed to make its peer leave); resolves with its output. */
function nrpe(args: string[], timeoutSeconds = 60): { child: ChildProcess; done: Promise<string> } {
  let child!: ChildProcess;
  const done = new Promise<string>((resolve) => {
    child = execFile(
      CHECK_NRPE,
      ['-H', '127.0.0.1', '-p', String(nrpePort), '-t', String(timeoutSeconds), ...args],
      (_err, stdout, stderr) => resolve(`${stdout}${stderr}`.trim()),
    );
  });
  return { child, done };
}

const pidFile = (name: string): string => join(agent.dir, `${name}.pid`);
const pidOf = (name: string): number => Number(readFileSync(pidFile(name), 'utf8').trim());
/** Alive unless gone or a zombie. */
function alive(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
const started = (name: string): Promise<boolean> =>
  waitFor(() => existsSync(pidFile(name)) && readFileSync(pidFile(name), 'utf8').endsWith('\n'), 10_000);

before(async () => {
  ({ agent, base, ca } = made.add(
    await startWebAgent({
      ini: `[/modules]
CheckHelpers = enabled
CheckExternalScripts = enabled
RemoteServer = enabled
AgentServer = enabled
WEBServer = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = root-secret

[/settings/remote/server]
port = 0
bind to = 127.0.0.1
allow arguments = 1

[/settings/agent/server]
port = 0
bind to = 127.0.0.1
use ssl = 0
max queries per frame = 100

[/settings/external scripts]
timeout = 120
max concurrent = 2
max queued = 3
allow arguments = true

[/settings/external scripts/scripts]
check_hold = hold.sh $ARG1$
`,
      files: { 'scripts/hold.sh': '#!/bin/sh\necho $$ > "$1.tmp" && mv "$1.tmp" "$1"\nexec sleep 100\n' },
    }),
    async (w) => assert.equal(await w.agent.stop(), 0),
  ));
  chmodSync(join(agent.dir, 'scripts', 'hold.sh'), 0o755);
  nrpePort = await listenerPort(agent, 'RemoteServer');
  agentPort = await listenerPort(agent, 'AgentServer');
});

after(() => made.close());

void describe('work whose requester has gone, and full queues (agent process)', () => {
  void it('an NRPE peer that gives up gets its script killed', async () => {
    const q = nrpe(['-c', 'check_hold', '-a', pidFile('nrpe')], 1);
    assert.ok(await started('nrpe'), 'the script started');
    const pid = pidOf('nrpe');
    assert.match(await q.done, /timed out|Socket timeout/i);
    assert.ok(await waitFor(() => !alive(pid), 10_000), 'the script was killed when its peer left');
  });

  void it('a full queue answers UNKNOWN at once and is counted; the waiting ones are cancelled when their peers leave', async () => {
    const held = ['q1', 'q2', 'q3', 'q4', 'q5', 'q6'].map((n) => nrpe(['-c', 'check_hold', '-a', pidFile(n)]));
    // 2 run, 3 wait, 1 is refused: the first answer, whichever it is.
    const first = await Promise.race(held.map((h) => h.done));
    assert.equal(
      first,
      'Script check_hold refused: 3 already waiting for a free slot ([/settings/external scripts] max queued)',
    );
    const metrics = await webRequest(`${base}/api/v1/metrics`, { ca, user: 'root', password: 'root-secret' });
    assert.match(metrics.body, /^agent_queue_refused_total\{module="CheckExternalScripts"\} 1$/m);
    for (const h of held) h.child.kill();
    await Promise.all(held.map((h) => h.done));
    // Every slot is free again: the next query starts at once (not after a 100 s script).
    const next = nrpe(['-c', 'check_hold', '-a', pidFile('after-nrpe')], 2);
    assert.ok(await started('after-nrpe'), 'a slot was free');
    await next.done;
  });

  void it('an agent-protocol peer that leaves gets its running and queued scripts cancelled', async () => {
    const socket = await open();
    for (let i = 1; i <= 5; i++)
      socket.write(queryFrame(i, [{ command: 'check_hold', arguments: [pidFile(`ap${i}`)] }]));
    assert.ok(
      await waitFor(
        () => ['ap1', 'ap2', 'ap3', 'ap4', 'ap5'].filter((n) => existsSync(pidFile(n))).length === 2,
        10_000,
      ),
      'two scripts run',
    );
    const running = ['ap1', 'ap2', 'ap3', 'ap4', 'ap5'].filter((n) => existsSync(pidFile(n))).map(pidOf);
    socket.destroy();
    assert.ok(await waitFor(() => running.every((pid) => !alive(pid)), 10_000), 'the running scripts were killed');
    const next = nrpe(['-c', 'check_hold', '-a', pidFile('after-agent')], 2);
    assert.ok(await started('after-agent'), 'the queued ones did not take the slots');
    await next.done;
  });

  void it('a frame carries at most max queries per frame', async () => {
    const socket = await open();
    const reader = new FrameReader(1 << 20);
    const frames: Frame[] = [];
    socket.on('data', (c: Buffer) => frames.push(...reader.push(c).frames));
    socket.write(
      queryFrame(
        1,
        Array.from({ length: 101 }, () => ({ command: 'check_ok' })),
      ),
    );
    socket.write(
      queryFrame(
        2,
        Array.from({ length: 100 }, () => ({ command: 'check_ok' })),
      ),
    );
    assert.ok(await waitFor(() => frames.length === 2, 10_000), `two answers, got ${frames.length}`);
    const byKind = new Map(frames.map((f) => [f.kind, f]));
    const error = byKind.get(FrameKind.Error);
    assert.ok(error, 'the frame of 101 is refused');
    assert.match(
      decode('QueryResponseMessage', error.body)
        .payload.map((p) => p.message)
        .join(''),
      /the frame carries 101 payloads; at most 100 are accepted \(\[\/settings\/agent\/server\] max queries per frame\)/,
    );
    const answered = byKind.get(FrameKind.QueryResponse);
    assert.ok(answered, 'the frame of 100 is answered');
    assert.equal(decode('QueryResponseMessage', answered.body).payload.length, 100);
    socket.destroy();
  });
});

async function open(): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port: agentPort });
  await new Promise<void>((res, rej) => socket.once('connect', res).once('error', rej));
  socket.on('error', () => undefined);
  return socket;
}

function queryFrame(id: number, payload: { command: string; arguments?: string[] }[]): Buffer {
  return encodeFrame(
    FrameKind.QueryRequest,
    encode('QueryRequestMessage', { header: { type: 1, version: 1, max_supported_version: 1, id }, payload }),
  );
}
