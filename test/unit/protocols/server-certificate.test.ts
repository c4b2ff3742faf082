/**
 * A listener's self-signed certificate (src/protocols/server-certificate.ts),
 * as the listeners' TLS loader (src/protocols/listener/server-tls.ts) uses
 * it: created when the certificate file is missing, with a key of its own
 * or the existing key file's, never over an existing file; existing files
 * are read, the key inside the certificate file when the key file is
 * missing; a file that cannot serve is reported by setting, file and reason.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadServerTls } from '../../../src/protocols/listener/server-tls.js';
import { createCertificate } from '../../../src/protocols/server-certificate.js';
import type { TlsFileProblem } from '../../../src/formats/tls-files.js';

const fail = (problems: TlsFileProblem[]): Error =>
  new Error(problems.map((p) => `${p.setting} ${p.file}: ${p.reason}`).join('; '));

/** What a web or agent-protocol listener loads at start (creates a missing certificate). */
async function load(files: { cert: string; key: string }): Promise<{ cert: string; key: string; generated: boolean }> {
  const tls = await loadServerTls(
    { pair: { ...files, keyExplicit: false, createsMissing: true }, verifyMode: 'none', verify: 'by-mode' },
    fail,
    true,
  );
  return { cert: tls.options.cert as string, key: tls.options.key as string, generated: tls.generated };
}

void describe('a listener certificate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'web-tls-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  void it('creates a self-signed certificate and key when missing, then reads them back', async () => {
    const files = { cert: join(dir, 'a', 'sec', 'cert.pem'), key: join(dir, 'a', 'sec', 'cert.key') };
    const first = await load(files);
    assert.equal(first.generated, true);
    const x = new X509Certificate(first.cert);
    assert.ok(x.checkPrivateKey(createPrivateKey(first.key)));
    assert.match(String(x.subjectAltName), /IP Address:127\.0\.0\.1/);
    assert.equal(statSync(files.key).mode & 0o777, 0o600);
    const again = await load(files);
    assert.equal(again.generated, false);
    assert.equal(again.cert, first.cert);
  });

  void it('keeps an existing key when only the certificate is missing', async () => {
    const files = { cert: join(dir, 'b.pem'), key: join(dir, 'b.key') };
    const first = await load(files);
    unlinkSync(files.cert);
    const second = await load(files);
    assert.equal(second.generated, true);
    assert.equal(second.key, first.key);
    assert.ok(new X509Certificate(second.cert).checkPrivateKey(createPrivateKey(second.key)));
  });

  void it('takes the key from the certificate file when the key file is missing', async () => {
    const files = { cert: join(dir, 'c.pem'), key: join(dir, 'c.key') };
    const made = await load(files);
    writeFileSync(files.cert, made.cert + made.key);
    unlinkSync(files.key);
    const read = await load(files);
    assert.equal(read.generated, false);
    assert.equal(read.key, made.cert + made.key);
  });

  void it('a certificate with no key anywhere is reported, and nothing is overwritten', async () => {
    const files = { cert: join(dir, 'd.pem'), key: join(dir, 'd.key') };
    const made = await load(files);
    unlinkSync(files.key);
    writeFileSync(files.cert, made.cert);
    await assert.rejects(
      load(files),
      /certificate key .*d\.key: the key file is missing and the certificate file holds no private key/,
    );
    assert.equal(readFileSync(files.cert, 'utf8'), made.cert);
  });

  void it('names the file and the reason for a certificate or key that is not PEM, or a key of another certificate', async () => {
    const files = { cert: join(dir, 'e.pem'), key: join(dir, 'e.key') };
    const made = await load(files);
    writeFileSync(files.cert, 'garbage\n');
    await assert.rejects(load(files), {
      message: `certificate ${files.cert}: the file is not a PEM certificate (no start line)`,
    });
    writeFileSync(files.cert, made.cert);
    writeFileSync(files.key, 'not a key\n');
    await assert.rejects(load(files), {
      message: `certificate key ${files.key}: the file holds no PEM private key (no start line)`,
    });
    const other = await load({ cert: join(dir, 'f.pem'), key: join(dir, 'f.key') });
    writeFileSync(files.key, other.key);
    await assert.rejects(load(files), {
      message: `certificate key ${files.key}: the private key does not belong to the certificate`,
    });
  });

  void it('a certificate that cannot be written: the error code of the listener, naming the file', async () => {
    const blocked = join(dir, 'not-a-folder');
    writeFileSync(blocked, 'a file where a folder should be\n');
    const cert = join(blocked, 'cert.pem');
    await assert.rejects(
      createCertificate({ cert, key: join(blocked, 'cert.key') }, undefined, 'AGENT_ERR_AGENT_CERTIFICATE'),
      (err: Error & { code?: string }) => {
        assert.equal(err.code, 'AGENT_ERR_AGENT_CERTIFICATE');
        assert.match(
          err.message,
          /^cannot load or create the agent server certificate .*not-a-folder\/cert\.pem: EEXIST/,
        );
        return true;
      },
    );
  });
});
