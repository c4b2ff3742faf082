/**
 * The web server's certificate: read from the configured files, or created
 * self-signed (selfsigned v5, EC P-256, sha256, SAN localhost/127.0.0.1/::1
 * and the host name, two years) when the certificate file is missing.
 *
 * Rules:
 * - both files present: read them;
 * - certificate present, key file missing: the key is expected inside the
 *   certificate file (NSClient++'s convention);
 * - certificate missing: a new one is written there, signed with the key of
 *   the key file when that exists, else with a new key written to the key
 *   file (mode 0600); folders are created. Existing files are never
 *   overwritten (exclusive create), so two starts cannot clobber each other.
 * Every failure is AGENT_ERR_WEB_CERTIFICATE naming the file.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { AgentError, errorMessage } from '../errors.js';

export interface CertificateFiles {
  cert: string;
  key: string;
}

export interface LoadedCertificate {
  cert: string;
  key: string;
  /** True when this call created the certificate. */
  generated: boolean;
}

export async function loadOrCreateCertificate(files: CertificateFiles): Promise<LoadedCertificate> {
  const cert = await readIfExists(files.cert);
  if (cert !== undefined) {
    const key = (await readIfExists(files.key)) ?? (cert.includes('PRIVATE KEY-----') ? cert : undefined);
    if (key === undefined) throw new AgentError('AGENT_ERR_WEB_CERTIFICATE', [files.key, 'the key file is missing and the certificate file holds no private key']);
    return { cert, key, generated: false };
  }
  try {
    const existingKey = await readIfExists(files.key);
    const keyPair = existingKey === undefined ? undefined : pairOf(existingKey);
    const notBeforeDate = new Date(Date.now() - 60_000);
    const notAfterDate = new Date(notBeforeDate.getTime() + 2 * 365 * 24 * 3600 * 1000);
    const host = hostname();
    // Loaded only when a certificate must be made: the library costs more to load than the rest of the start.
    const { generate } = await import('selfsigned');
    const pems = await generate([{ name: 'commonName', value: 'localhost' }, { name: 'organizationName', value: 'agent self-signed' }], {
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
    });
    await mkdir(dirname(files.cert), { recursive: true });
    if (existingKey === undefined) {
      await mkdir(dirname(files.key), { recursive: true });
      await writeFile(files.key, pems.private, { flag: 'wx', mode: 0o600 });
    }
    await writeFile(files.cert, pems.cert, { flag: 'wx', mode: 0o644 });
    return { cert: pems.cert, key: existingKey ?? pems.private, generated: true };
  } catch (err) {
    if (err instanceof AgentError) throw err;
    throw new AgentError('AGENT_ERR_WEB_CERTIFICATE', [files.cert, errorMessage(err)], { cause: err });
  }
}

// ---------------------------------------------------------------- helpers

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new AgentError('AGENT_ERR_WEB_CERTIFICATE', [file, errorMessage(err)], { cause: err });
  }
}

function pairOf(keyPem: string): { privateKey: string; publicKey: string; type: string } {
  const priv = createPrivateKey(keyPem);
  return {
    type: priv.asymmetricKeyType ?? 'unknown',
    privateKey: priv.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: createPublicKey(priv).export({ type: 'spki', format: 'pem' }).toString(),
  };
}
