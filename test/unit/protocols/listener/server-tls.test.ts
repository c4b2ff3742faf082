/**
 * The one TLS builder and loader of the listeners
 * (src/protocols/listener/server-tls.ts), with real PEM files: one
 * SECLEVEL rule for every configured cipher list, client certificates by
 * verify mode (NRPE) or by ca (agent protocol), no trust store when no
 * client certificate is asked for, every file problem reported at once, no
 * certificate created on a reload from disk, and a digest that tells
 * changed material from the same.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadServerTls, serverTlsOptions, type ServerTlsSpec } from '../../../../src/protocols/listener/server-tls.js';
import type { TlsFileProblem } from '../../../../src/formats/tls-files.js';
import { certDir, type CertDir, type CertFiles } from '../../../helpers/agent-certs.js';

/** `fail` for the loader: the problems as one error (what the modules turn into the validate lines). */
const fail = (problems: TlsFileProblem[]): Error =>
  new Error(problems.map((p) => `${p.setting} ${p.file}: ${p.reason}`).join('; '));

void describe('server TLS: one builder', () => {
  void it('a configured cipher list gets @SECLEVEL=0 unless it sets a level; no list: Node default', () => {
    assert.equal(
      serverTlsOptions({ verifyMode: '', verify: 'by-ca', ciphers: 'ALL:!ADH:!LOW' }).ciphers,
      'ALL:!ADH:!LOW:@SECLEVEL=0:+kDHE',
    );
    assert.equal(
      serverTlsOptions({ verifyMode: '', verify: 'by-mode', ciphers: 'ALL:!MD5:@STRENGTH:@SECLEVEL=0' }).ciphers,
      'ALL:!MD5:@STRENGTH:@SECLEVEL=0:+kDHE',
    );
    assert.equal(
      serverTlsOptions({ verifyMode: '', verify: 'by-mode', ciphers: 'HIGH:@SECLEVEL=2' }).ciphers,
      'HIGH:@SECLEVEL=2:+kDHE',
    );
    assert.equal(
      serverTlsOptions({ verifyMode: '', verify: 'by-mode', ciphers: '' }).ciphers,
      'DEFAULT:@SECLEVEL=0:+kDHE',
    );
    const web = serverTlsOptions({ cert: 'c', key: 'k', verifyMode: 'none', verify: 'by-mode', alpn: ['http/1.1'] });
    assert.equal(web.ciphers, undefined);
    assert.equal(web.dhparam, undefined);
    assert.deepEqual(web.ALPNProtocols, ['http/1.1']);
  });

  void it('no certificate: TLS 1.2 at most (anonymous suites); a certificate: no cap', () => {
    assert.equal(serverTlsOptions({ verifyMode: '', verify: 'by-mode', ciphers: '' }).maxVersion, 'TLSv1.2');
    assert.equal(
      serverTlsOptions({ cert: 'c', key: 'k', verifyMode: '', verify: 'by-mode', ciphers: '' }).maxVersion,
      undefined,
    );
  });

  void it('client certificates by verify mode (NRPE) and by ca (agent protocol); no trust store when none is asked', () => {
    const byMode = (verifyMode: string, ca?: string) =>
      serverTlsOptions({ verifyMode, verify: 'by-mode', ...(ca ? { ca } : {}) });
    assert.deepEqual(
      [byMode('peer-cert', 'CA').requestCert, byMode('peer-cert', 'CA').rejectUnauthorized],
      [true, true],
    );
    assert.deepEqual([byMode('peer', 'CA').requestCert, byMode('peer', 'CA').rejectUnauthorized], [true, false]);
    assert.equal(byMode('none', 'CA').requestCert, undefined);
    assert.deepEqual(byMode('none').ca, []);
    const byCa = (verifyMode: string, ca?: string) =>
      serverTlsOptions({ verifyMode, verify: 'by-ca', ...(ca ? { ca } : {}) });
    assert.deepEqual([byCa('none', 'CA').requestCert, byCa('none', 'CA').rejectUnauthorized], [true, true]);
    assert.deepEqual(
      [byCa('client-once', 'CA').requestCert, byCa('client-once', 'CA').rejectUnauthorized],
      [true, false],
    );
    assert.deepEqual(byCa('none').ca, []);
    assert.throws(() => byCa('peer-cert'), { code: 'AGENT_ERR_AGENT_TLS_CONFIG' });
  });
});

void describe('server TLS: the loader', () => {
  let certs: CertDir;
  let ca: CertFiles;
  let first: CertFiles;
  let second: CertFiles;
  before(() => {
    certs = certDir();
    ca = certs.ca('loader-ca');
    first = certs.issue(ca, 'first', 'server');
    second = certs.issue(ca, 'second', 'server');
  });
  after(() => certs.remove());

  const spec = (pair: { cert: string; key: string }, extra: Partial<ServerTlsSpec> = {}): ServerTlsSpec => ({
    pair: { ...pair, keyExplicit: true, createsMissing: true },
    verifyMode: 'none',
    verify: 'by-mode',
    ...extra,
  });

  void it('reads the files once into options, names every file, and a digest that changes with their content', async () => {
    const live = { cert: join(certs.dir, 'live.pem'), key: join(certs.dir, 'live.key') };
    copyFileSync(first.cert, live.cert);
    copyFileSync(first.key, live.key);
    const a = await loadServerTls(spec(live, { ca: ca.cert }), fail, false);
    assert.equal(a.options.cert, readFileSync(first.cert, 'utf8'));
    assert.deepEqual(a.files, [live.cert, live.key, ca.cert]);
    assert.equal(a.generated, false);
    assert.equal((await loadServerTls(spec(live, { ca: ca.cert }), fail, false)).digest, a.digest);
    copyFileSync(second.cert, live.cert);
    copyFileSync(second.key, live.key);
    assert.notEqual((await loadServerTls(spec(live, { ca: ca.cert }), fail, false)).digest, a.digest);
  });

  void it('every problem at once: a key of another certificate and a ca that is no certificate', async () => {
    const garbage = join(certs.dir, 'garbage-ca.pem');
    writeFileSync(garbage, 'no certificate\n');
    // Also at a listener's start, which leaves a key of the certificate's type to the server's context
    // build: the ca's problem makes the key's checks run, so both are named.
    for (const serverBuildsContext of [false, true])
      await assert.rejects(
        loadServerTls(spec({ cert: first.cert, key: second.key }, { ca: garbage }), fail, true, {
          serverBuildsContext,
        }),
        (err: Error) => {
          assert.match(
            err.message,
            /^certificate key .*second\.key: the private key does not belong to the certificate; ca .*garbage-ca\.pem: the file holds no PEM certificate/,
          );
          return true;
        },
      );
  });

  void it('a missing certificate is created at a start, never on a reload from disk', async () => {
    const files = { cert: join(certs.dir, 'made', 'cert.pem'), key: join(certs.dir, 'made', 'cert.key') };
    await assert.rejects(loadServerTls(spec(files), fail, false), /: certificate .*cert\.pem: no such file$/);
    assert.equal(existsSync(files.cert), false);
    const made = await loadServerTls(spec(files), fail, true);
    assert.equal(made.generated, true);
    assert.equal(existsSync(files.cert), true);
  });
});
