/**
 * Black box (issue 11, item 6): a peer tries to forge log lines by putting a
 * line break and a fake entry into every value the agent may log. The agent
 * runs as a process with RemoteServer (NRPE), AgentServer and WEBServer; the
 * forged text goes into an NRPE command, an agent-protocol exec command, the
 * sender, command and message of an agent-protocol submission, an HTTP
 * Basic user name and an HTTP path (percent-encoded, and as raw bytes). Neither the process output nor
 * /api/v1/logs may then hold a line that starts with the forged text, and
 * the escaped form (`\n2026-01-01 ERROR forged…`) must be there instead.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect as netConnect } from 'node:net';
import { encodeFrame, FrameKind } from '../../src/protocols/agent/framing.js';
import { encodePacket, QUERY_PACKET } from '../../src/protocols/nrpe/packet.js';
import { encode } from '../../src/core/plugin/codec.js';
import { agentTls } from '../helpers/abuse-peers.js';
import { listenerPort, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { rawHttps, webRequest } from '../helpers/web-client.js';
import { inRange } from '../../src/in-range.js';

const FORGED = '2026-01-01 ERROR forged';
/** `FORGED` after a line break, for peer value `what`. */
const forge = (what: string): string => `x\n${FORGED} ${what}`;
/** What the log must show instead: the break written as `\n`. */
const escaped = (what: string): string => `x\\n${FORGED} ${what}`;

void describe('log lines cannot be forged from the network (agent process)', () => {
  let agent: AgentProcess;
  let nrpePort = 0;
  let agentPort = 0;
  let base = '';
  const made = new Teardown();

  before(async () => {
    agent = made.add(
      await startAgent({
        ini: `[/modules]
RemoteServer = enabled
AgentServer = enabled
WEBServer = enabled
CheckHelpers = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/remote/server]
port = 0
bind to = 127.0.0.1
use ssl = 0
allow arguments = 1

[/settings/agent/server]
port = 0
bind to = 127.0.0.1

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = root-pw
`,
      }),
      (a) => a.stop(),
    );
    base = inRange(await agent.waitForLog(/web server listening on (https:\/\/127\.0\.0\.1:\d+)/), 1);
    nrpePort = await listenerPort(agent, 'RemoteServer');
    agentPort = await listenerPort(agent, 'AgentServer');
  });
  after(() => made.close());

  /** Lines of the process output and of /api/v1/logs that start with the forged text (after any indent). */
  async function forgedLines(): Promise<string[]> {
    const res = await webRequest(`${base}/api/v1/logs?per_page=500`, { user: 'root', password: 'root-pw' });
    assert.equal(res.status, 200, res.body);
    const api = res
      .json<Array<{ message: string }>>()
      .flatMap((e) => e.message.split(/\r\n|\r|\n|\u2028|\u2029|\u0085/));
    const out = agent.logs().split(/\r\n|\r|\n|\u2028|\u2029|\u0085/);
    return [...out, ...api].filter((line) => line.trimStart().startsWith(FORGED));
  }

  void it('an NRPE command with a line break is logged escaped', async () => {
    const mark = agent.mark();
    const packet = encodePacket({ version: 4, type: QUERY_PACKET, text: `${forge('nrpe')}!arg` });
    await new Promise<void>((resolve) => {
      const s = netConnect({ host: '127.0.0.1', port: nrpePort }, () => s.write(packet));
      s.on('data', () => undefined);
      s.on('error', () => undefined);
      s.on('close', () => resolve());
      setTimeout(() => s.destroy(), 5000).unref();
    });
    const line = (
      await agent.waitForLog(/refused query (.*) from 127\.0\.0\.1: it contains characters refused/, 5000, mark)
    )[1];
    assert.equal(line, escaped('nrpe'));
  });

  void it('agent-protocol exec commands and submission fields (sender, command, message) are logged escaped', async () => {
    const mark = agent.mark();
    const s = await agentTls(agentPort);
    try {
      s.on('data', () => undefined);
      s.write(
        encodeFrame(
          FrameKind.ExecRequest,
          encode('ExecuteRequestMessage', {
            header: { type: 3, version: 1, max_supported_version: 1, id: 1 },
            payload: [{ command: forge('exec'), arguments: [] }],
          }),
        ),
      );
      s.write(
        encodeFrame(
          FrameKind.Submit,
          encode('SubmitResponseMessage', {
            header: { type: 2, version: 1, max_supported_version: 1, id: 2, sender: forge('sender') },
            payload: [{ command: forge('command'), result: 0, message: forge('message') }],
          }),
        ),
      );
      const refused = (
        await agent.waitForLog(/refused exec command (.*) from 127\.0\.0\.1: not in allowed exec commands/, 5000, mark)
      )[1];
      assert.equal(refused, escaped('exec'));
      const submitted = await agent.waitForLog(/submission from (.*): (.*) OK: (.*)/, 5000, mark);
      assert.deepEqual(submitted.slice(1, 4), [escaped('sender'), escaped('command'), escaped('message')]);
    } finally {
      s.destroy();
    }
  });

  void it('an HTTP Basic user name and an HTTP path cannot break a log line', async () => {
    const mark = agent.mark();
    const bad = await webRequest(`${base}/api/v1/info`, { user: forge('user'), password: 'wrong' });
    assert.equal(bad.status, 403);
    const who = (await agent.waitForLog(/bad credentials for user "(.*)"/, 5000, mark))[1];
    // JSON quoting (the user name is shown in quotes) and then the log escaper.
    assert.equal(who, `x\\\\n${FORGED} user`);
    // A line break in a path arrives percent-encoded and is logged as sent (the path is never decoded for the log).
    const encoded = `/api/v1/${encodeURIComponent(forge('path'))}`;
    assert.equal((await webRequest(`${base}${encoded}`, { user: 'nobody', password: 'wrong' })).status, 403);
    const logged = (
      await agent.waitForLog(
        /403 GET (\/api\/v1\/x\S*) from 127\.0\.0\.1: bad credentials for user "nobody"/,
        5000,
        mark,
      )
    )[1];
    assert.equal(logged, encoded);
    // Raw control bytes (here NEL, U+0085, a C1 line break) in a request target are refused by the HTTP parser: 400, nothing logged.
    const head = await rawHttps(
      Number(new URL(base).port),
      `GET /api/v1/\u0085${FORGED.replace(/ /g, '_')} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    );
    assert.match(head, /^HTTP\/1\.1 400 /);
  });

  void it('leaves no line that starts with the forged text, in the output or in /api/v1/logs', async () => {
    assert.deepEqual(await forgedLines(), []);
    const res = await webRequest(`${base}/api/v1/logs?per_page=500`, { user: 'root', password: 'root-pw' });
    const messages = res.json<Array<{ message: string }>>().map((e) => e.message);
    for (const what of ['nrpe', 'exec', 'sender', 'command', 'message']) {
      assert.ok(
        messages.some((m) => m.includes(escaped(what))),
        `the escaped ${what} is in /api/v1/logs`,
      );
    }
  });
});
