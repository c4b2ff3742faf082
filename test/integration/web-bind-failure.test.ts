/**
 * WEBServer on a port that is taken at start: the agent makes no promise it
 * cannot keep. The generated password is not printed, each failed attempt is
 * one error line naming the next retry, `agent ready` lists WEBServer as
 * failed, and once the port is free the retry binds and only then prints the
 * password, which works. And ALPN: a client that offers only http/1.0.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { connect } from 'node:tls';
import { startAgent, webPort } from '../helpers/agent-process.js';
import { webRequest } from '../helpers/web-client.js';

void test('a web port taken at start: no password printed, one error per retry, ready lists the failure, then it recovers', async () => {
  // The blocker takes a port of the system's choice first; the agent is then told to bind that same port.
  const blocker = createServer();
  await new Promise<void>((res) => blocker.listen(0, '127.0.0.1', () => res()));
  const { port } = blocker.address() as AddressInfo;
  const agent = await startAgent({
    ini: `[/modules]\nWEBServer = enabled\nCheckHelpers = enabled\n\n[/settings/WEB/server]\nport = ${port}s\nbind to = 127.0.0.1\n`,
    env: { AGENT_LOG_LEVEL: 'info' },
  });
  try {
    const ready = await agent.waitForLog(/agent ready: .*/);
    assert.match(ready[0], /modules: CheckHelpers; failed: WEBServer/);
    const first = await agent.waitForLog(
      /error\s+agent:module:WEBServer: AGENT_ERR_MODULE_START: .*; next retry in 1 s \(\S+\)/,
    );
    assert.match(first[0], /EADDRINUSE|in use/);
    // The second attempt fails too and says when the third comes.
    await agent.waitForLog(/error\s+agent:module:WEBServer: AGENT_ERR_MODULE_START: .*; next retry in 2 s/, 5000);
    assert.doesNotMatch(agent.logs(), /web password for user root/);
    assert.equal(agent.logs().match(/next retry in 1 s/g)?.length, 1, 'one error line per attempt');
    await new Promise<void>((res) => blocker.close(() => res()));
    const printed = await agent.waitForLog(/web password for user root: (\S+)/, 10_000);
    const r = await webRequest(`https://127.0.0.1:${port}/api/v1/info`, { user: 'root', password: printed[1] });
    assert.equal(r.status, 200);
  } finally {
    blocker.close();
    await agent.stop();
  }
});

void test('an HTTP/1.0 client over TLS (ALPN http/1.0 only, as curl --http1.0 offers) gets its answer', async () => {
  const agent = await startAgent({
    ini: `[/modules]\nWEBServer = enabled\n\n[/settings/default]\npassword = http10-secret\n\n[/settings/WEB/server]\nport = 0s\nbind to = 127.0.0.1\n`,
  });
  try {
    const port = await webPort(agent);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(
        { host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['http/1.0'] },
        () => {
          assert.equal(socket.alpnProtocol, 'http/1.0');
          socket.write(
            `GET /api/v1/info HTTP/1.0\r\nAuthorization: Basic ${Buffer.from('root:http10-secret').toString('base64')}\r\n\r\n`,
          );
        },
      );
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (text += d));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
    });
    assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(answer, /"version":/);
  } finally {
    await agent.stop();
  }
});
