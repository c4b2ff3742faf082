import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { ConnectionGuard } from '../../../src/protocols/connection-guard.js';
import { LogSink } from '../../../src/log.js';

const sink = new LogSink(1000, 'silent');
const log = sink.logger('test:guard');
const warnings = (): string[] => sink.entries(new Set(['warning'])).map((r) => r.message);

let server: Server;
let port: number;
let guard: ConnectionGuard;
/** Accepted sockets that passed the guard, by arrival. */
const admitted: Socket[] = [];

before(async () => {
  guard = new ConnectionGuard({ maxConnections: 6, maxPerAddress: 3, firstRequestMs: 400 }, log, 'test');
  server = createServer((s) => {
    if (!guard.admit(s)) return;
    admitted.push(s);
    s.on('error', () => undefined);
    // "A request" here is any byte: it ends the first-request deadline.
    s.once('data', () => guard.served(s));
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  port = (server.address() as { port: number }).port;
});
after(async () => {
  for (const s of admitted) s.destroy();
  guard.dispose();
  await new Promise<void>((res) => server.close(() => res()));
});

async function open(localAddress: string): Promise<{ socket: Socket; closed: Promise<void> }> {
  const socket = connect({ host: '127.0.0.1', port, localAddress });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((res) => socket.once('close', () => res()));
  await new Promise<void>((res) => socket.once('connect', () => res()).once('close', () => res()));
  return { socket, closed };
}

const isClosed = (p: Promise<void>, ms: number): Promise<boolean> =>
  Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

void test('per-address cap: the fourth connection from one address is refused, another address still gets in', async () => {
  const mine = [await open('127.0.0.2'), await open('127.0.0.2'), await open('127.0.0.2')];
  const fourth = await open('127.0.0.2');
  assert.equal(await isClosed(fourth.closed, 2000), true);
  const other = await open('127.0.0.3');
  assert.equal(await isClosed(other.closed, 100), false);
  assert.equal(guard.openFrom('127.0.0.2'), 3);
  assert.ok(
    warnings().some(
      (w) =>
        w === 'refused connection from 127.0.0.2: 3 connections from this address open (max connections per address)',
    ),
  );
  for (const c of [...mine, other]) c.socket.destroy();
  await Promise.all([...mine, other].map((c) => c.closed));
});

void test('total cap: connections over max connections are refused whatever their address', async () => {
  // Let the server see the closes of the previous test.
  for (let i = 0; i < 50 && guard.open > 0; i++) await new Promise((r) => setTimeout(r, 20));
  const held = [];
  for (const a of ['127.0.0.4', '127.0.0.5', '127.0.0.6']) for (let i = 0; i < 2; i++) held.push(await open(a));
  const seventh = await open('127.0.0.7');
  assert.equal(await isClosed(seventh.closed, 2000), true);
  assert.ok(warnings().some((w) => w === 'refused connection from 127.0.0.7: 6 connections open (max connections)'));
  for (const c of held) c.socket.destroy();
  await Promise.all(held.map((c) => c.closed));
});

void test('a connection without a first request is closed at the deadline; one that sent its request is not', async () => {
  for (let i = 0; i < 50 && guard.open > 0; i++) await new Promise((r) => setTimeout(r, 20));
  const silent = await open('127.0.0.8');
  const talker = await open('127.0.0.9');
  talker.socket.write('x');
  assert.equal(await isClosed(silent.closed, 3000), true);
  assert.equal(await isClosed(talker.closed, 300), false);
  assert.ok(warnings().some((w) => w === 'closed connection from 127.0.0.8: no complete request within 400 ms'));
  talker.socket.destroy();
});

void test('a flood is logged once per address and reason, then summed up', async () => {
  for (let i = 0; i < 50 && guard.open > 0; i++) await new Promise((r) => setTimeout(r, 20));
  const before = warnings().length;
  const held = [await open('127.0.0.10'), await open('127.0.0.10'), await open('127.0.0.10')];
  const refused = [];
  for (let i = 0; i < 20; i++) refused.push(await open('127.0.0.10'));
  await Promise.all(refused.map((c) => c.closed));
  guard.dispose(); // writes the pending summaries
  const lines = warnings().slice(before);
  assert.deepEqual(lines, [
    'refused connection from 127.0.0.10: 3 connections from this address open (max connections per address)',
    'refused connection from 127.0.0.10: 3 connections from this address open (max connections per address): 19 more times in the last 10 s',
  ]);
  for (const c of held) c.socket.destroy();
});
