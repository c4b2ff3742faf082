/**
 * createDispatch on a real HTTP server on loopback: handlers run in order
 * through next(), params are decoded, the query parsed, a synchronous
 * throw, a rejection and next(err) reach onError, and a path no route
 * matches reaches onNoMatch.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import polka from 'polka';
import { createDispatch } from '../../../src/web/dispatch.js';
import type { WebRequest } from '../../../src/web/respond.js';

let server: Server;
let port = 0;

before(async () => {
  const app = polka<WebRequest>();
  app.use((req, _res, next) => {
    req.routeLabel = 'seen';
    void next();
  });
  app.get(
    '/items/:name',
    (req, res) => void res.end(`${req.routeLabel} ${req.params.name} ${JSON.stringify(req.query)} ${req.path}`),
  );
  app.get('/throws', () => {
    throw new Error('sync throw');
  });
  app.get('/rejects', async () => {
    await Promise.resolve();
    throw new Error('async rejection');
  });
  app.get('/next-error', (_req, _res, next) => void next(new Error('next error')));
  app.get('/chain', (_req, res, next) => {
    res.setHeader('X-Step', 'one');
    void next();
  });
  app.get('/chain', (_req, res) => void res.end(`after ${String(res.getHeader('X-Step'))}`));
  const dispatch = createDispatch(app, {
    onNoMatch: (req, res) => {
      res.statusCode = 404;
      res.end(`no match ${req.path}`);
    },
    onError: (err, _req, res) => {
      res.statusCode = 500;
      res.end(`error ${(err as Error).message}`);
    },
  });
  server = createServer(dispatch);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

function get(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

void describe('createDispatch', () => {
  void it('runs the middleware, then the route with decoded params and the parsed query', async () => {
    assert.deepEqual(await get('/items/a%20b?x=1&x=2&y=z'), {
      status: 200,
      body: 'seen a b {"x":["1","2"],"y":"z"} /items/a%20b',
    });
    // Memoized lookups: the same path again, and another one, get their own params.
    assert.deepEqual(await get('/items/a%20b'), { status: 200, body: 'seen a b {} /items/a%20b' });
    assert.deepEqual(await get('/items/c'), { status: 200, body: 'seen c {} /items/c' });
  });

  void it('passes from one handler of a path to the next', async () => {
    assert.deepEqual(await get('/chain'), { status: 200, body: 'after one' });
  });

  void it('sends a synchronous throw, a rejection and next(err) to onError', async () => {
    assert.deepEqual(await get('/throws'), { status: 500, body: 'error sync throw' });
    assert.deepEqual(await get('/rejects'), { status: 500, body: 'error async rejection' });
    assert.deepEqual(await get('/next-error'), { status: 500, body: 'error next error' });
  });

  void it('answers a path no route matches with onNoMatch', async () => {
    assert.deepEqual(await get('/nothing/here?q=1'), { status: 404, body: 'no match /nothing/here' });
  });
});
