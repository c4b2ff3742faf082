/**
 * Certificates for agent-protocol tests, made with the openssl CLI in a
 * temp folder: a CA, and server or client certificates signed by it
 * (EC P-256, one day, server SAN localhost/127.0.0.1). Every call is
 * synchronous and bounded by openssl's own run time (a few ms each).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CertFiles {
  cert: string;
  key: string;
}

export interface CertDir {
  dir: string;
  ca(name: string): CertFiles;
  /** A certificate for `name` signed by the CA; `server` adds serverAuth and SAN localhost/127.0.0.1. */
  issue(ca: CertFiles, name: string, usage: 'server' | 'client'): CertFiles;
  remove(): void;
}

export function certDir(): CertDir {
  const dir = mkdtempSync(join(tmpdir(), 'agent-certs-'));
  const openssl = (args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
  };
  const newKey = (file: string): void =>
    openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file]);
  return {
    dir,
    ca(name) {
      const key = join(dir, `${name}.key`);
      const cert = join(dir, `${name}.pem`);
      newKey(key);
      openssl([
        'req',
        '-x509',
        '-new',
        '-key',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        `/CN=${name}`,
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
      ]);
      return { cert, key };
    },
    issue(ca, name, usage) {
      const key = join(dir, `${name}.key`);
      const csr = join(dir, `${name}.csr`);
      const cert = join(dir, `${name}.pem`);
      const ext = join(dir, `${name}.ext`);
      newKey(key);
      openssl(['req', '-new', '-key', key, '-out', csr, '-subj', `/CN=${name}`]);
      const lines =
        usage === 'server'
          ? ['extendedKeyUsage=serverAuth', 'subjectAltName=DNS:localhost,IP:127.0.0.1']
          : ['extendedKeyUsage=clientAuth'];
      writeFileSync(ext, `${lines.join('\n')}\n`);
      openssl([
        'x509',
        '-req',
        '-in',
        csr,
        '-CA',
        ca.cert,
        '-CAkey',
        ca.key,
        '-CAcreateserial',
        '-out',
        cert,
        '-days',
        '1',
        '-extfile',
        ext,
      ]);
      return { cert, key };
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
