/**
 * Client TLS contexts are built once per key (target TLS settings and
 * settings version): the same key gives the same context, a new key a new
 * one, and a build that throws is not cached. A cached context still makes
 * a working TLS connection (anonymous DH, as NRPE does by default).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { cachedClientTls } from '../../../src/protocols/client-tls-cache.js';
import { buildClientTls } from '../../../src/protocols/nrpe/tls.js';
import { serverTlsOptions } from '../../../src/protocols/listener/server-tls.js';

void test('one context per key; a failed build is not cached', () => {
  let builds = 0;
  const build = (): ReturnType<typeof buildClientTls> => {
    builds++;
    return buildClientTls({ allowedCiphers: 'ADH' });
  };
  const a = cachedClientTls('k1', build);
  const b = cachedClientTls('k1', build);
  assert.equal(a, b);
  assert.equal(a.secureContext, b.secureContext);
  assert.equal(builds, 1);
  const c = cachedClientTls('k2', build);
  assert.notEqual(c.secureContext, a.secureContext);
  assert.equal(builds, 2);
  let failures = 0;
  const failing = (): never => {
    failures++;
    throw new Error('unreadable certificate');
  };
  assert.throws(() => cachedClientTls('k3', failing), /unreadable certificate/);
  assert.throws(() => cachedClientTls('k3', failing), /unreadable certificate/);
  assert.equal(failures, 2);
});

void test('a cached context connects over anonymous DH', async () => {
  const server = createServer(
    serverTlsOptions({ verifyMode: '', verify: 'by-mode', ciphers: 'ALL:!MD5:@STRENGTH:@SECLEVEL=0' }),
    (s) => s.end('hello'),
  );
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const port = (server.address() as AddressInfo).port;
  try {
    const tls = cachedClientTls('anon', () => buildClientTls({ allowedCiphers: 'ALL:!MD5:@STRENGTH' }));
    for (let i = 0; i < 2; i++) {
      const text = await new Promise<string>((res, rej) => {
        const sock: TLSSocket = connect({ ...tls, host: '127.0.0.1', port, servername: '' });
        let got = '';
        sock.on('data', (d: Buffer) => (got += d.toString()));
        sock.on('end', () => res(got));
        sock.on('error', rej);
      });
      assert.equal(text, 'hello');
    }
  } finally {
    await new Promise<void>((res) => server.close(() => res()));
  }
});
