/** linkBase against a real HTTP server on loopback: which Host headers reach the links. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { linkBase, parsePublicHosts, type PublicHosts } from '../../../src/web/public-host.js';

let server: Server;
let port = 0;
let hosts: PublicHosts = parsePublicHosts('');

before(async () => {
  server = createServer((req, res) => res.end(linkBase(req, hosts)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

function linkFor(host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', headers: { host }, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

void test('names the server answers to on its own port are used', async () => {
  hosts = parsePublicHosts('');
  for (const name of ['127.0.0.1', 'localhost', 'LocalHost.', 'agent.localhost', hostname()]) {
    assert.equal(await linkFor(`${name}:${port}`), `http://${name}:${port}`, name);
  }
});

void test('foreign names, other ports and malformed Hosts fall back to the local address', async () => {
  hosts = parsePublicHosts('');
  for (const host of ['evil.example:1', `evil.example:${port}`, '127.0.0.1:1', 'localhost', 'a/b', '1.2.3.4:80']) {
    assert.equal(await linkFor(host), `http://127.0.0.1:${port}`, host);
  }
});

void test('public hosts: listed names are used (any port when none is listed), and the first is the fallback', async () => {
  hosts = parsePublicHosts('monitor.example.org, proxy.example.org:8080');
  assert.equal(await linkFor('monitor.example.org'), 'http://monitor.example.org');
  assert.equal(await linkFor('Monitor.Example.org:9443'), 'http://Monitor.Example.org:9443');
  assert.equal(await linkFor('proxy.example.org:8080'), 'http://proxy.example.org:8080');
  assert.equal(await linkFor('proxy.example.org:8081'), `http://monitor.example.org:${port}`);
  assert.equal(await linkFor('evil.example:1'), `http://monitor.example.org:${port}`);
});

void test('one keep-alive connection: each request gets the answer for its own Host (the remembered one only for the same Host)', async () => {
  hosts = parsePublicHosts('');
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const ports = new Set<number>();
  const on = (host: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/', headers: { host }, agent }, (res) => {
        ports.add(res.socket.localPort ?? 0);
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve(body));
      });
      req.on('error', reject);
      req.end();
    });
  try {
    assert.equal(await on(`localhost:${port}`), `http://localhost:${port}`);
    assert.equal(await on(`localhost:${port}`), `http://localhost:${port}`);
    assert.equal(await on('evil.example:1'), `http://127.0.0.1:${port}`);
    assert.equal(await on(`localhost:${port}`), `http://localhost:${port}`);
    hosts = parsePublicHosts('evil.example');
    assert.equal(await on('evil.example:1'), 'http://evil.example:1', 'new public hosts apply on the same connection');
    assert.equal(ports.size, 1, 'all on one connection');
  } finally {
    agent.destroy();
  }
});
