/**
 * The TLS of every listener (web, NRPE, agent protocol, and any later one):
 * one loader that reads and checks the files once per change, and one
 * builder of the server options with one set of rules.
 *
 * Rules:
 * - a configured cipher list gets `@SECLEVEL=0` unless it sets a level
 *   itself: OpenSSL 3 refuses anonymous suites (check_nrpe's default) and
 *   older peers' suites at its default level, and the list, not OpenSSL's
 *   level, is what the admin wrote. Finite-field DH suites are moved after
 *   the others (`+kDHE` only reorders), DH parameters are the `dh` file when
 *   it exists, else OpenSSL's choice, and the server's order wins. Without a
 *   cipher setting (the web server) Node's default list is used;
 * - a listener without a certificate (NRPE's anonymous DH) is capped at TLS
 *   1.2, the only versions with anonymous suites;
 * - client certificates (`verify`): `by-mode` (NRPE): peer-cert,
 *   fail-if-no-peer-cert and remote-peer require one signed by `ca`; peer
 *   and client-once ask for one and check it when sent; none asks for none.
 *   `by-ca` (agent protocol): the ca decides: without one no client
 *   certificate is asked for and a verify mode other than none is an error
 *   (AGENT_ERR_AGENT_TLS_CONFIG); with one, a certificate is required unless
 *   the mode is peer or client-once;
 * - a listener that asks no client certificate gets an empty CA list, so
 *   Node does not load its ~140 root certificates into the context.
 * Files: the certificate and key are checked as `config-agent settings validate`
 * checks them (formats/tls-files.ts); a missing certificate is created
 * self-signed when the listener does that (`createsMissing`) and `create`
 * allows it (a reload after a change on disk never creates one). Problems of
 * the files go to `fail`, which turns them into the error the caller
 * reports (the validate lines, settings/store/tls-checks.ts).
 */
import { hash } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { TlsOptions } from 'node:tls';
import { AgentError } from '../../errors.js';
import { checkCa, checkPair, quickPair, type PairFiles, type TlsFileProblem } from '../../formats/tls-files.js';
import { contextProblem } from '../../formats/pem-check.js';
import { readRegularFileSync, TLS_FILE_LIMIT } from '../../formats/regular-file.js';
import { createCertificate, type CertificateErrorCode } from '../server-certificate.js';

export interface ServerTlsSpec {
  /** Certificate and key files; undefined: no certificate (anonymous suites only). */
  pair?: PairFiles;
  /** CA file for client certificates. */
  ca?: string;
  verifyMode: string;
  verify: 'by-mode' | 'by-ca';
  /** OpenSSL cipher list as configured (empty: OpenSSL's DEFAULT); undefined: Node's default list. */
  ciphers?: string;
  /** DH parameter file (used when it exists). */
  dh?: string;
  alpn?: string[];
  /** The code of a certificate that cannot be created (listeners whose pair `createsMissing`; default the web server's). */
  certificateError?: CertificateErrorCode;
}

export interface ServerTls {
  options: TlsOptions;
  /** Every file the material came from (watched for changes on disk). */
  files: string[];
  /** Digest of what was read: equal digests, equal material. */
  digest: string;
  /** The certificate was created by this load. */
  generated: boolean;
  /**
   * Loaded for a server that builds its TLS context next (`serverBuildsContext`): the problem of
   * the files that an error of that build means (undefined: not a TLS context error), so a start
   * reports it as the check would have.
   */
  contextProblem?: (err: unknown) => TlsFileProblem | undefined;
}

/** Same key, same settings (the files may still have changed on disk). */
export function tlsKey(spec: ServerTlsSpec | undefined): string {
  return spec === undefined ? 'plain' : JSON.stringify(spec);
}

/**
 * Reads and checks the files once and builds the options. Problems of the
 * files throw `fail(problems)`; a bad verify mode throws AGENT_ERR_AGENT_TLS_CONFIG.
 * `serverBuildsContext` (a listener's first start, where nothing runs that a
 * failure would have to keep): the check builds no throwaway TLS context
 * beside the server's, and the result's `contextProblem` reads an error of
 * the server's own build as the problem the check would have found.
 */
export async function loadServerTls(
  spec: ServerTlsSpec,
  fail: (problems: TlsFileProblem[]) => Error,
  create: boolean,
  { serverBuildsContext = false }: { serverBuildsContext?: boolean } = {},
): Promise<ServerTls> {
  const problems: TlsFileProblem[] = [];
  let cert: string | undefined;
  let key: string | undefined;
  let generated = false;
  let contextProblem: ServerTls['contextProblem'];
  // A start whose server builds the context next: material that build can check by itself is not
  // checked here (tls-files.ts quickPair); its checks run when the build, or another file, fails.
  const quick = serverBuildsContext && spec.pair ? quickPair(spec.pair) : undefined;
  const unchecked = quick !== undefined;
  if (spec.pair) {
    const pair = quick ? { ok: true as const, ...quick } : checkPair(spec.pair, { context: !serverBuildsContext });
    if (!pair.ok) problems.push(pair.problem);
    else if (!('missing' in pair)) {
      ({ cert, key } = pair);
      if (serverBuildsContext) contextProblem = contextProblemOf(spec.pair, pair.keyFile, unchecked);
    } else if (!create) problems.push({ setting: 'certificate', file: spec.pair.cert, reason: 'no such file' });
    else if (problems.length === 0) {
      const made = await createCertificate(spec.pair, pair.key, spec.certificateError ?? 'AGENT_ERR_WEB_CERTIFICATE');
      ({ cert, key } = made);
      generated = true;
    }
  }
  let ca: string | undefined;
  if (spec.ca) {
    const checked = checkCa(spec.ca);
    if (checked.ok) ca = checked.ca;
    else problems.push(checked.problem);
  }
  // Every problem at once: the pair's checks, left to the server's context build, run now.
  if (problems.length > 0 && unchecked && spec.pair) {
    const checked = checkPair(spec.pair, { context: false });
    if (!checked.ok) problems.unshift(checked.problem);
  }
  if (problems.length > 0) throw fail(problems);
  const dh = spec.dh && existsSync(spec.dh) ? readDh(spec.dh) : undefined;
  const options = serverTlsOptions({ ...spec, cert, key, ca, dh });
  const files = [spec.pair?.cert, spec.pair?.key, spec.ca, spec.dh].filter(
    (f): f is string => f !== undefined && f !== '',
  );
  const digest = hash('sha256', JSON.stringify([cert, key, ca, dh?.toString('base64')]), 'hex');
  return { options, files: [...new Set(files)], digest, generated, ...(contextProblem ? { contextProblem } : {}) };
}

/** The server options from PEM text (the one builder; NRPE's and the agent protocol's helpers call it). */
export function serverTlsOptions(s: {
  cert?: TlsOptions['cert'];
  key?: TlsOptions['key'];
  ca?: TlsOptions['ca'];
  dh?: Buffer | undefined;
  verifyMode: string;
  verify: 'by-mode' | 'by-ca';
  ciphers?: string | undefined;
  alpn?: string[] | undefined;
}): TlsOptions {
  const options: TlsOptions = { minVersion: 'TLSv1.2', honorCipherOrder: true };
  if (s.cert !== undefined && s.key !== undefined) {
    options.cert = s.cert;
    options.key = s.key;
  } else {
    options.maxVersion = 'TLSv1.2';
  }
  if (s.ciphers !== undefined) {
    options.ciphers = `${withSecLevel0(s.ciphers || 'DEFAULT')}:+kDHE`;
    options.dhparam = s.dh ?? 'auto';
  }
  if (s.alpn) options.ALPNProtocols = s.alpn;
  const mode = s.verifyMode || 'none';
  const hasCa = s.ca !== undefined && s.ca !== '' && !(Array.isArray(s.ca) && s.ca.length === 0);
  if (s.verify === 'by-ca') {
    if (!hasCa) {
      if (mode !== 'none')
        throw new AgentError('AGENT_ERR_AGENT_TLS_CONFIG', [
          `verify mode ${mode} needs a ca to check client certificates against`,
        ]);
    } else {
      options.requestCert = true;
      options.rejectUnauthorized = mode !== 'peer' && mode !== 'client-once';
    }
  } else if (mode === 'peer-cert' || mode === 'fail-if-no-peer-cert' || mode === 'remote-peer') {
    options.requestCert = true;
    options.rejectUnauthorized = true;
  } else if (mode === 'peer' || mode === 'client-once') {
    options.requestCert = true;
    options.rejectUnauthorized = false;
  }
  if (hasCa) options.ca = s.ca;
  else if (!options.requestCert) options.ca = [];
  return options;
}

/** Appends `@SECLEVEL=0` unless the list sets a level itself. */
export function withSecLevel0(ciphers: string): string {
  return /@SECLEVEL=/i.test(ciphers) ? ciphers : `${ciphers}:@SECLEVEL=0`;
}

// ---------------------------------------------------------------- helpers

/**
 * An OpenSSL error of building the context of the pair's certificate and the key from `keyFile`, as
 * checkPair reports it. `unchecked`: the pair's checks were left to that build (quickPair), so
 * they run now and name what they find in their own words (a certificate or key that cannot be
 * read, in which file).
 */
function contextProblemOf(
  pair: PairFiles,
  keyFile: string,
  unchecked: boolean,
): (err: unknown) => TlsFileProblem | undefined {
  return (err) => {
    // OpenSSL's errors as node names them: ERR_OSSL_… (libcrypto), ERR_SSL_… (libssl: `ee key too small`).
    if (!/^ERR_O?SSL_/.test(String((err as NodeJS.ErrnoException | undefined)?.code))) return undefined;
    if (unchecked) {
      const checked = checkPair(pair, { context: false });
      if (!checked.ok) return checked.problem;
    }
    const reason = contextProblem(err);
    return { setting: 'certificate key', file: keyFile, reason, mismatchOf: pair.cert };
  };
}

function readDh(file: string): Buffer {
  try {
    return readRegularFileSync(file, TLS_FILE_LIMIT);
  } catch (err) {
    throw new AgentError('AGENT_ERR_TLS_FILE', [
      'DH parameter',
      file,
      (err as NodeJS.ErrnoException).code ?? (err as Error).message,
    ]);
  }
}
