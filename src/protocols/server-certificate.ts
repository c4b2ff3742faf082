/**
 * A listener's certificate (WEBServer and AgentServer) when its file is
 * missing: created self-signed (selfsigned v5, EC P-256, sha256, SAN
 * localhost/127.0.0.1/::1 and the host name, two years) and written there,
 * signed with the key of the key file when that exists, else with a new key
 * written to the key file (mode 0600; one file for both, mode 0600, when no
 * separate key file is named); folders are created. Existing files are
 * never overwritten (exclusive create), so two starts cannot clobber each
 * other.
 * Existing files are read and checked by the listeners' TLS loader
 * (listener/server-tls.ts, formats/tls-files.ts), which calls this only for
 * a missing certificate. A failure to create is an AgentError naming the
 * file: the code passed as `errorCode` (AGENT_ERR_WEB_CERTIFICATE,
 * AGENT_ERR_AGENT_CERTIFICATE).
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { AgentError, errorMessage } from '../errors.js';

export interface CertificateFiles {
  cert: string;
  /** The key file; empty or the certificate file: one file holds both. */
  key: string;
}

export interface LoadedCertificate {
  cert: string;
  key: string;
  /** True: this call created the certificate. */
  generated: boolean;
}

export type CertificateErrorCode =
  'AGENT_ERR_WEB_CERTIFICATE' | 'AGENT_ERR_AGENT_CERTIFICATE' | 'AGENT_ERR_NSCLIENT_CERTIFICATE';

/** Creates the missing certificate (the rules above); `existingKey`: the key file's PEM, when it exists. */
export async function createCertificate(
  files: CertificateFiles,
  existingKey: string | undefined,
  errorCode: CertificateErrorCode,
): Promise<LoadedCertificate> {
  const fail = (file: string, reason: string, cause?: unknown): AgentError =>
    new AgentError(errorCode, [file, reason], cause === undefined ? undefined : { cause });
  try {
    const keyPair = existingKey === undefined ? undefined : pairOf(existingKey);
    const notBeforeDate = new Date(Date.now() - 60_000);
    const notAfterDate = new Date(notBeforeDate.getTime() + 2 * 365 * 24 * 3600 * 1000);
    const host = hostname();
    // Loaded only when a certificate must be made: the library costs more to load than the rest of the start.
    const { generate } = await import('selfsigned');
    const pems = await generate(
      [
        { name: 'commonName', value: 'localhost' },
        { name: 'organizationName', value: 'agent self-signed' },
      ],
      {
        keyType: keyPair?.type === 'rsa' ? 'rsa' : 'ec',
        curve: 'P-256',
        algorithm: 'sha256',
        notBeforeDate,
        notAfterDate,
        ...(keyPair ? { keyPair: { privateKey: keyPair.privateKey, publicKey: keyPair.publicKey } } : {}),
        extensions: [
          { name: 'basicConstraints', cA: false, critical: true },
          { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
          { name: 'extKeyUsage', serverAuth: true },
          {
            name: 'subjectAltName',
            altNames: [
              { type: 2, value: 'localhost' },
              ...(host && host !== 'localhost' ? [{ type: 2 as const, value: host }] : []),
              { type: 7, ip: '127.0.0.1' },
              { type: 7, ip: '::1' },
            ],
          },
        ],
      },
    );
    // Files end with a newline, so that `cat cert key > both.pem` gives a file OpenSSL can read.
    const certPem = withNewline(pems.cert);
    const keyPem = existingKey ?? withNewline(pems.private);
    await mkdir(dirname(files.cert), { recursive: true });
    if (files.key === '' || files.key === files.cert) {
      // One file for both (a certificate setting without a key): it holds the key, so it is private.
      await writeFile(files.cert, certPem + keyPem, { flag: 'wx', mode: 0o600 });
      return { cert: certPem + keyPem, key: certPem + keyPem, generated: true };
    }
    if (existingKey === undefined) {
      await mkdir(dirname(files.key), { recursive: true });
      await writeFile(files.key, keyPem, { flag: 'wx', mode: 0o600 });
    }
    await writeFile(files.cert, certPem, { flag: 'wx', mode: 0o644 });
    return { cert: certPem, key: keyPem, generated: true };
  } catch (err) {
    if (err instanceof AgentError) throw err;
    // A folder the agent may not write (a read-only system, a service's sandbox): say what moves it.
    const code = (err as NodeJS.ErrnoException).code;
    const where =
      code === 'EACCES' || code === 'EROFS' || code === 'EPERM' || code === 'ENOTDIR'
        ? `; the certificate is created when missing: set [/paths] certificate-path (or the certificate and certificate key settings) to a folder the agent may write`
        : '';
    throw fail(files.cert, `${errorMessage(err)}${where}`, err);
  }
}

// ---------------------------------------------------------------- helpers

function withNewline(pem: string): string {
  return pem.endsWith('\n') ? pem : `${pem}\n`;
}

function pairOf(keyPem: string): { privateKey: string; publicKey: string; type: string } {
  const priv = createPrivateKey(keyPem);
  return {
    type: priv.asymmetricKeyType ?? 'unknown',
    privateKey: priv.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: createPublicKey(priv).export({ type: 'spki', format: 'pem' }).toString(),
  };
}
