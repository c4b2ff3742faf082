/**
 * Read-only checks of a listener's TLS files, done exactly as the listener
 * will load them, so that `config-agent settings validate`, the settings API and a
 * reload (src/protocols/listener/server-tls.ts) agree on what is wrong and where.
 *
 * Rules (the union of NSClient++'s and ours):
 * - the certificate file must hold a PEM certificate that parses;
 * - the key comes from the key file; when the key file is missing, or the
 *   key is not written in the settings (a default path) and the certificate
 *   file holds a private key, the key inside the certificate file is used
 *   (NSClient++'s convention: one file with both);
 * - the key must parse and belong to the certificate;
 * - a CA file must hold at least one certificate, and every one must parse;
 * - a missing certificate file is no problem for listeners that create one
 *   self-signed (WEBServer, AgentServer); its existing key must then parse.
 * Nothing here writes or throws: every problem comes back as the setting it
 * belongs to, the file and the reason in plain words.
 */
import { fsReason } from '../errors.js';
import { readRegularFileSync, TLS_FILE_LIMIT } from './regular-file.js';
import {
  caProblem,
  certificateProblem,
  holdsKeyBlock,
  keyCheckedByContext,
  pairProblem,
  privateKeyProblem,
} from './pem-check.js';

export type TlsSetting = 'certificate' | 'certificate key' | 'ca';

export interface TlsFileProblem {
  /** The setting whose file is at fault (for a key that does not fit: `certificate key`). */
  setting: TlsSetting;
  file: string;
  reason: string;
  /** Set when the key does not belong to the certificate: the certificate it was checked against. */
  mismatchOf?: string;
}

export interface PairFiles {
  cert: string;
  /** The key file; empty (or the certificate file) when the certificate file holds the key. */
  key: string;
  /** The key is written in the settings: then it is used even when the certificate file holds a key too. */
  keyExplicit: boolean;
  /** A missing certificate file is created by the listener (self-signed) rather than an error. */
  createsMissing: boolean;
}

export type PairCheck =
  | { ok: true; cert: string; key: string; keyFile: string }
  | { ok: true; missing: true; key: string | undefined }
  | { ok: false; problem: TlsFileProblem };

/**
 * The certificate and key as the listener will use them, or the first problem. `context: false`:
 * no throwaway TLS context proves the pair usable, for a caller whose server builds the context
 * next (pem-check.ts pairProblem); a key of another certificate is found all the same.
 */
export function checkPair(files: PairFiles, { context = true }: { context?: boolean } = {}): PairCheck {
  const cert = read(files.cert);
  if ('error' in cert) return { ok: false, problem: { setting: 'certificate', file: files.cert, reason: cert.error } };
  const keyFile = files.key || files.cert;
  const separate = keyFile !== files.cert;
  const key = separate ? read(keyFile) : cert;
  if ('error' in key) return { ok: false, problem: { setting: 'certificate key', file: keyFile, reason: key.error } };
  if (cert.missing) {
    if (!files.createsMissing)
      return { ok: false, problem: { setting: 'certificate', file: files.cert, reason: 'no such file' } };
    const keyText = separate && !key.missing ? key.text : undefined;
    const bad = keyText === undefined ? undefined : privateKeyProblem(keyText);
    if (bad) return { ok: false, problem: { setting: 'certificate key', file: keyFile, reason: bad } };
    return { ok: true, missing: true, key: keyText };
  }
  const certProblem = certificateProblem(cert.text);
  if (certProblem) return { ok: false, problem: { setting: 'certificate', file: files.cert, reason: certProblem } };
  const inside = privateKeyProblem(cert.text) === undefined;
  // The certificate file's own key wins over a key file that is only a default, or missing.
  const useInside = separate && inside && (key.missing || !files.keyExplicit);
  const from = !separate || useInside ? files.cert : keyFile;
  const keyText = !separate || useInside ? cert.text : key.missing ? undefined : key.text;
  if (keyText === undefined) {
    return {
      ok: false,
      problem: {
        setting: 'certificate key',
        file: keyFile,
        reason: 'the key file is missing and the certificate file holds no private key',
      },
    };
  }
  const keyProblem = privateKeyProblem(keyText);
  if (keyProblem)
    return {
      ok: false,
      problem: { setting: from === files.cert ? 'certificate' : 'certificate key', file: from, reason: keyProblem },
    };
  const pair = pairProblem(cert.text, keyText, { context });
  if (pair)
    return { ok: false, problem: { setting: 'certificate key', file: from, reason: pair, mismatchOf: files.cert } };
  return { ok: true, cert: cert.text, key: keyText, keyFile: from };
}

/**
 * The certificate and key as checkPair() would take them, unchecked, for a server that builds its
 * TLS context of them next and can check them by itself (pem-check.ts keyCheckedByContext: the key
 * says it is of the certificate's type); undefined in every other case (a file missing or
 * unreadable, a certificate file that holds a key beside a key file, types that differ or do not
 * show), for checkPair() to decide. The caller runs checkPair() when that build fails.
 */
export function quickPair(files: PairFiles): { cert: string; key: string; keyFile: string } | undefined {
  const cert = textOf(files.cert);
  if (cert === undefined) return undefined;
  const keyFile = files.key || files.cert;
  if (keyFile === files.cert) return keyCheckedByContext(cert, cert) ? { cert, key: cert, keyFile } : undefined;
  // A key in the certificate file too: which of the two serves is checkPair()'s rule.
  if (holdsKeyBlock(cert)) return undefined;
  const key = textOf(keyFile);
  if (key === undefined || !keyCheckedByContext(cert, key)) return undefined;
  return { cert, key, keyFile };
}

/** The text of a file as read() reads it; undefined when missing or unreadable. */
function textOf(file: string): string | undefined {
  const r = read(file);
  return 'text' in r ? r.text : undefined;
}

/** The CA file's content, or why it cannot serve as one (missing, unreadable, no certificate, one that does not parse). */
export function checkCa(file: string): { ok: true; ca: string } | { ok: false; problem: TlsFileProblem } {
  const r = read(file);
  if ('error' in r) return { ok: false, problem: { setting: 'ca', file, reason: r.error } };
  if (r.missing) return { ok: false, problem: { setting: 'ca', file, reason: 'no such file' } };
  const problem = caProblem(r.text);
  return problem ? { ok: false, problem: { setting: 'ca', file, reason: problem } } : { ok: true, ca: r.text };
}

// ---------------------------------------------------------------- helpers

function read(
  file: string,
): { text: string; missing?: undefined } | { missing: true; text?: undefined } | { error: string } {
  try {
    return { text: readRegularFileSync(file, TLS_FILE_LIMIT).toString('utf8') };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { missing: true };
    return { error: fsReason(err) };
  }
}
