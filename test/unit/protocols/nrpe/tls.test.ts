/**
 * TLS option building for the remote protocol's client with bad files: each
 * error is AGENT_ERR_TLS_FILE naming the file and what is wrong with it (the
 * server's: test/unit/protocols/listener/server-tls.test.ts).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildClientTls } from '../../../../src/protocols/nrpe/tls.js';
import { createCertificate } from '../../../../src/protocols/server-certificate.js';

void describe('remote protocol TLS files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nrpe-tls-'));
  const garbage = join(dir, 'garbage.txt');
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'cert.key');
  const otherKey = join(dir, 'other.key');
  before(async () => {
    writeFileSync(garbage, 'my-host-name\n');
    await createCertificate({ cert, key }, undefined, 'AGENT_ERR_WEB_CERTIFICATE');
    await createCertificate({ cert: join(dir, 'other.pem'), key: otherKey }, undefined, 'AGENT_ERR_WEB_CERTIFICATE');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  void it('refuses a certificate that is not PEM, naming the file', () => {
    assert.throws(() => buildClientTls({ allowedCiphers: '', certificate: garbage }), {
      code: 'AGENT_ERR_TLS_FILE',
      message: `cannot read certificate file ${garbage}: the file is not a PEM certificate (no start line)`,
    });
  });

  void it('refuses a key that is not PEM and a key of another certificate', () => {
    assert.throws(() => buildClientTls({ allowedCiphers: '', certificate: cert, certificateKey: garbage }), {
      message: `cannot read certificate key file ${garbage}: the file holds no PEM private key (no start line)`,
    });
    assert.throws(() => buildClientTls({ allowedCiphers: '', certificate: cert, certificateKey: otherKey }), {
      message: `cannot read certificate file ${cert}: the private key does not belong to the certificate (key ${otherKey})`,
    });
  });

  void it('refuses a ca that holds no certificate, and takes good files', () => {
    assert.throws(() => buildClientTls({ allowedCiphers: '', ca: garbage, verifyMode: 'peer-cert' }), {
      message: `cannot read ca file ${garbage}: the file holds no PEM certificate (no start line)`,
    });
    const ok = buildClientTls({
      allowedCiphers: '',
      certificate: cert,
      certificateKey: key,
      ca: cert,
      verifyMode: 'peer-cert',
    });
    assert.ok(ok.cert && ok.key && ok.ca);
  });

  void it("an empty cipher list means OpenSSL's default list; a set list is kept", () => {
    assert.equal(buildClientTls({ allowedCiphers: '' }).ciphers, 'DEFAULT:@SECLEVEL=0');
    assert.equal(
      buildClientTls({ allowedCiphers: 'ALL:!MD5:@STRENGTH:@SECLEVEL=0' }).ciphers,
      'ALL:!MD5:@STRENGTH:@SECLEVEL=0',
    );
  });
});
