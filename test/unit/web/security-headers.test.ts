/**
 * SecureResponse on a real HTTP server on loopback: every head it writes
 * (writeHead with an object, a bare end(), setHeader first, the
 * precomputed list of writeSecureHead) carries the security headers once,
 * and a header the answer sets itself keeps the answer's value.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  SECURITY_HEADER_LIST,
  SECURITY_HEADERS,
  SecureResponse,
  writeSecureHead,
} from '../../../src/web/security-headers.js';

let server: Server;
let port = 0;

const ANSWERS: Record<string, (res: SecureResponse) => void> = {
  '/object': (res) => {
    res.writeHead(201, { 'Content-Type': 'text/plain' });
    res.end('object');
  },
  '/implicit': (res) => {
    res.statusCode = 404;
    res.end('implicit');
  },
  '/set-first': (res) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'");
    res.end('set first');
  },
  '/own-in-object': (res) => {
    res.writeHead(200, { 'referrer-policy': 'same-origin' });
    res.end('own');
  },
  '/list': (res) => {
    writeSecureHead(res, 200, [...SECURITY_HEADER_LIST, 'Content-Length', '4']);
    res.end('list');
  },
};

before(async () => {
  server = createServer({ ServerResponse: SecureResponse }, (req, res) =>
    ANSWERS[req.url ?? '']?.(res as SecureResponse),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

function get(path: string): Promise<{ status: number; headers: IncomingHttpHeaders; raw: string[] }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, raw: res.rawHeaders }));
    });
    req.on('error', reject);
    req.end();
  });
}

function count(raw: string[], name: string): number {
  return raw.filter((h, i) => i % 2 === 0 && h.toLowerCase() === name.toLowerCase()).length;
}

void describe('SecureResponse', () => {
  void it('adds the security headers, once, to every kind of head', async () => {
    for (const path of ['/object', '/implicit', '/list']) {
      const res = await get(path);
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
        assert.equal(res.headers[name.toLowerCase()], value, `${path}: ${name}`);
        assert.equal(count(res.raw, name), 1, `${path}: ${name} once`);
      }
    }
    assert.equal((await get('/implicit')).status, 404);
    assert.equal((await get('/object')).headers['content-type'], 'text/plain');
  });

  void it('keeps a header the answer sets itself, with setHeader or in writeHead', async () => {
    const first = await get('/set-first');
    assert.equal(first.headers['content-security-policy'], "default-src 'none'");
    assert.equal(count(first.raw, 'Content-Security-Policy'), 1);
    assert.equal(first.headers['referrer-policy'], 'no-referrer');
    const own = await get('/own-in-object');
    assert.equal(own.headers['referrer-policy'], 'same-origin');
    assert.equal(count(own.raw, 'Referrer-Policy'), 1);
    assert.equal(own.headers['content-security-policy'], SECURITY_HEADERS['Content-Security-Policy']);
  });
});
