/**
 * listenOn() with real sockets on loopback: a numeric address is bound
 * through net.BoundSocket and answers; a name (`localhost`) goes through
 * listen()'s own lookup; a port in use rejects with the server's LISTEN
 * error in listen()'s words, the system code kept on the cause, and the
 * listener that holds the port keeps answering.
 */
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { listenOn } from '../../../../src/protocols/listener/listen.js';
import { AgentError } from '../../../../src/errors.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A server that greets every connection with `hello`. */
function greeter(): Server {
  const s = createServer((c) => c.end('hello'));
  servers.push(s);
  return s;
}

async function greeting(port: number, host: string): Promise<string> {
  const c = connect(port, host);
  let text = '';
  c.on('data', (d: Buffer) => (text += d.toString()));
  await once(c, 'end');
  c.destroy();
  return text;
}

void describe('listenOn', () => {
  void it('binds a numeric address and answers on it', async () => {
    const s = greeter();
    await listenOn(s, '127.0.0.1', 0, 'AGENT_ERR_WEB_LISTEN');
    const a = s.address() as AddressInfo;
    assert.equal(a.address, '127.0.0.1');
    assert.ok(a.port > 0);
    assert.equal(await greeting(a.port, '127.0.0.1'), 'hello');
  });

  void it('binds a name through the lookup', async () => {
    const s = greeter();
    await listenOn(s, 'localhost', 0, 'AGENT_ERR_WEB_LISTEN');
    const a = s.address() as AddressInfo;
    assert.match(a.address, /^(127\.0\.0\.1|::1)$/);
    assert.equal(await greeting(a.port, a.address), 'hello');
  });

  void it('a server that already listens refuses a second listen, and keeps no socket of it', async () => {
    const s = greeter();
    await listenOn(s, '127.0.0.1', 0, 'AGENT_ERR_WEB_LISTEN');
    const before = readdirSync('/proc/self/fd').length;
    await assert.rejects(listenOn(s, '127.0.0.1', 0, 'AGENT_ERR_WEB_LISTEN'), { code: 'ERR_SERVER_ALREADY_LISTEN' });
    // The socket bound for the refused call is closed, not left open beside the server.
    assert.equal(readdirSync('/proc/self/fd').length, before);
    const { port } = s.address() as AddressInfo;
    assert.equal(await greeting(port, '127.0.0.1'), 'hello');
  });

  for (const host of ['127.0.0.1', 'localhost']) {
    void it(`a port in use (${host}) rejects with the LISTEN error and the system's code; the holder keeps answering`, async () => {
      // The holder binds the same way, so that it holds the address a name resolves to (127.0.0.1 or ::1).
      const holder = greeter();
      await listenOn(holder, host, 0, 'AGENT_ERR_NRPE_LISTEN');
      const { address, port } = holder.address() as AddressInfo;
      const second = greeter();
      const err = await listenOn(second, host, port, 'AGENT_ERR_NRPE_LISTEN').then(
        () => assert.fail('the second bind should fail'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof AgentError);
      assert.equal(err.code, 'AGENT_ERR_NRPE_LISTEN');
      assert.match(err.message, new RegExp(`${host}:${port}`));
      assert.match(err.message, /EADDRINUSE: address already in use/);
      assert.equal((err.cause as NodeJS.ErrnoException).code, 'EADDRINUSE');
      assert.equal(second.listening, false);
      assert.equal(await greeting(port, address), 'hello');
    });
  }
});
