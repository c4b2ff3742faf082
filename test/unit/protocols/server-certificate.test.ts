import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOrCreateCertificate } from '../../../src/protocols/server-certificate.js';

describe('loadOrCreateCertificate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'web-tls-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a self-signed certificate and key when missing, then reads them back', async () => {
    const files = { cert: join(dir, 'a', 'sec', 'cert.pem'), key: join(dir, 'a', 'sec', 'cert.key') };
    const first = await loadOrCreateCertificate(files);
    assert.equal(first.generated, true);
    const x = new X509Certificate(first.cert);
    assert.ok(x.checkPrivateKey(createPrivateKey(first.key)));
    assert.match(String(x.subjectAltName), /IP Address:127\.0\.0\.1/);
    assert.equal(statSync(files.key).mode & 0o777, 0o600);
    const again = await loadOrCreateCertificate(files);
    assert.equal(again.generated, false);
    assert.equal(again.cert, first.cert);
  });

  it('keeps an existing key when only the certificate is missing', async () => {
    const files = { cert: join(dir, 'b.pem'), key: join(dir, 'b.key') };
    const first = await loadOrCreateCertificate(files);
    unlinkSync(files.cert);
    const second = await loadOrCreateCertificate(files);
    assert.equal(second.generated, true);
    assert.equal(second.key, first.key);
    assert.ok(new X509Certificate(second.cert).checkPrivateKey(createPrivateKey(second.key)));
  });

  it('takes the key from the certificate file when the key file is missing', async () => {
    const files = { cert: join(dir, 'c.pem'), key: join(dir, 'c.key') };
    const made = await loadOrCreateCertificate(files);
    writeFileSync(files.cert, made.cert + made.key);
    unlinkSync(files.key);
    const read = await loadOrCreateCertificate(files);
    assert.equal(read.generated, false);
    assert.equal(read.key, made.cert + made.key);
  });

  it('fails with AGENT_ERR_WEB_CERTIFICATE when a certificate has no key anywhere', async () => {
    const files = { cert: join(dir, 'd.pem'), key: join(dir, 'd.key') };
    const made = await loadOrCreateCertificate(files);
    unlinkSync(files.key);
    writeFileSync(files.cert, made.cert);
    await assert.rejects(loadOrCreateCertificate(files), { code: 'AGENT_ERR_WEB_CERTIFICATE' });
    assert.equal(readFileSync(files.cert, 'utf8'), made.cert, 'nothing is overwritten');
  });

  it('names the file and the reason for a certificate or key that is not PEM, or a key of another certificate', async () => {
    const files = { cert: join(dir, 'e.pem'), key: join(dir, 'e.key') };
    const made = await loadOrCreateCertificate(files);
    writeFileSync(files.cert, 'garbage\n');
    await assert.rejects(loadOrCreateCertificate(files), {
      code: 'AGENT_ERR_WEB_CERTIFICATE',
      message: `cannot load or create the web server certificate ${files.cert}: the file is not a PEM certificate (no start line)`,
    });
    await assert.rejects(loadOrCreateCertificate(files, 'AGENT_ERR_AGENT_CERTIFICATE'), {
      code: 'AGENT_ERR_AGENT_CERTIFICATE',
      message: `cannot load or create the agent server certificate ${files.cert}: the file is not a PEM certificate (no start line)`,
    });
    writeFileSync(files.cert, made.cert);
    writeFileSync(files.key, 'not a key\n');
    await assert.rejects(loadOrCreateCertificate(files), { message: `cannot load or create the web server certificate ${files.key}: the file holds no PEM private key (no start line)` });
    const other = await loadOrCreateCertificate({ cert: join(dir, 'f.pem'), key: join(dir, 'f.key') });
    writeFileSync(files.key, other.key);
    await assert.rejects(loadOrCreateCertificate(files), { message: `cannot load or create the web server certificate ${files.cert}: the private key does not belong to the certificate (key ${files.key})` });
    unlinkSync(files.cert);
    writeFileSync(files.key, 'not a key\n');
    await assert.rejects(loadOrCreateCertificate(files), { message: `cannot load or create the web server certificate ${files.key}: the file holds no PEM private key (no start line)` });
  });
});
