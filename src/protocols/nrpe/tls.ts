/**
 * TLS option building for the remote protocol's client, in the ways the
 * Debian NRPE daemon accepts (the server's options are the listeners' one
 * builder, protocols/listener/server-tls.ts):
 * - anonymous DH (no certificate): cipher lists need `@SECLEVEL=0` on
 *   OpenSSL 3;
 * - certificates, a CA and verify modes otherwise.
 * File problems (unreadable, not PEM, a key that does not belong to the
 * certificate, a ca without certificates) throw AgentError
 * AGENT_ERR_TLS_FILE naming the file and the reason.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import type { ConnectionOptions, TlsOptions } from 'node:tls';
import { AgentError } from '../../errors.js';
import { caProblem, certificateProblem, pairProblem, privateKeyProblem } from '../../formats/pem-check.js';
import { readRegularFileSync, TLS_FILE_LIMIT } from '../../formats/regular-file.js';
import { withSecLevel0 } from '../listener/server-tls.js';

export type VerifyMode = 'none' | 'peer' | 'peer-cert' | 'remote-peer' | 'fail-if-no-peer-cert' | 'client-once';

export interface NrpeTlsSettings {
  /** OpenSSL cipher list for TLS 1.2 and below. */
  allowedCiphers: string;
  /** Certificate file (own certificate); empty for none. */
  certificate?: string;
  /** Key file of the certificate; empty means the certificate file holds the key too. */
  certificateKey?: string;
  /** PEM (default) or DER. */
  certificateFormat?: string;
  /** CA file used to verify the peer; empty for the system store (client) or none. */
  ca?: string;
  /** none, peer, peer-cert, …; empty or absent: none. */
  verifyMode?: string;
  /** DH parameter file (server only); used when the file exists, else OpenSSL picks a group. */
  dh?: string;
}

/**
 * Client options: the cipher list with `@SECLEVEL=0` added (so ADH and
 * AECDH are usable), no server verification unless the verify mode asks
 * for it (then the chain is checked against `ca`; host names are not, as
 * in NRPE and NSClient++), and a client certificate when one is configured.
 */
export function buildClientTls(s: NrpeTlsSettings): ConnectionOptions {
  const options: ConnectionOptions = {
    // The target's list (its schema default is ADH); an empty list means OpenSSL's default, as for the agent server.
    ciphers: withSecLevel0(s.allowedCiphers || 'DEFAULT'),
    minVersion: 'TLSv1.2',
    rejectUnauthorized: verifies(s.verifyMode),
    checkServerIdentity: () => undefined,
  };
  Object.assign(options, certificateOptions(s));
  return options;
}

function verifies(mode: string | undefined): boolean {
  return mode !== undefined && mode !== 'none' && mode !== 'client-once' && mode !== '';
}

function certificateOptions(s: NrpeTlsSettings): Partial<ConnectionOptions & TlsOptions> {
  const out: Partial<ConnectionOptions & TlsOptions> = {};
  const der = s.certificateFormat?.toUpperCase() === 'DER';
  if (s.certificate) {
    const raw = readFile('certificate', s.certificate);
    out.cert = der ? derCertToPem(raw, s.certificate) : checked(raw, 'certificate', s.certificate, certificateProblem);
    const keyFile = s.certificateKey || s.certificate;
    const keyRaw = keyFile === s.certificate ? raw : readFile('certificate key', keyFile);
    out.key = der ? derKeyToPem(keyRaw, keyFile) : checked(keyRaw, 'certificate key', keyFile, privateKeyProblem);
    const pair = pairProblem(out.cert, out.key);
    if (pair) throw new AgentError('AGENT_ERR_TLS_FILE', ['certificate', s.certificate, `${pair} (key ${keyFile})`]);
  }
  if (s.ca) out.ca = checked(readFile('ca', s.ca), 'ca', s.ca, caProblem);
  return out;
}

/** The content, or AGENT_ERR_TLS_FILE naming the file and what is wrong with it. */
function checked<T extends string | Buffer>(
  content: T,
  what: string,
  file: string,
  problemOf: (text: T) => string | undefined,
): T {
  const problem = problemOf(content);
  if (problem) throw new AgentError('AGENT_ERR_TLS_FILE', [what, file, problem]);
  return content;
}

function derCertToPem(raw: Buffer, file: string): string {
  try {
    return new X509Certificate(raw).toString();
  } catch (err) {
    throw new AgentError('AGENT_ERR_TLS_FILE', [
      'certificate',
      file,
      `not a DER certificate (${(err as Error).message})`,
    ]);
  }
}

function derKeyToPem(raw: Buffer, file: string): string {
  try {
    return createPrivateKey({ key: raw, format: 'der', type: 'pkcs8' })
      .export({ format: 'pem', type: 'pkcs8' })
      .toString();
  } catch (err) {
    throw new AgentError('AGENT_ERR_TLS_FILE', ['certificate key', file, (err as Error).message]);
  }
}

function readFile(what: string, file: string): Buffer {
  try {
    return readRegularFileSync(file, TLS_FILE_LIMIT);
  } catch (err) {
    throw new AgentError('AGENT_ERR_TLS_FILE', [
      what,
      file,
      (err as NodeJS.ErrnoException).code ?? (err as Error).message,
    ]);
  }
}
