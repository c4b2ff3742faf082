/**
 * The detached signature of a file pulled over http(s): fetched from
 * `signature url` (default: the file's URL + `.sig`) with the same guards
 * as the file (time limit, CA, content type, a 64 KiB cap), then checked
 * with `ssh-keygen -Y verify` against `allowed signers`, namespace
 * SIGNATURE_NAMESPACE. Made on the server side with
 * `ssh-keygen -Y sign -f KEY -n agent-settings FILE` (writes FILE.sig).
 * Any failure (no signature, a bad one, a key not in the file) throws
 * AGENT_ERR_SOURCE_SIGNATURE; what the settings apply is only ever the
 * body that was verified.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentError, errorMessage } from '../../errors.js';
import { fetchSettings, type FetchOptions } from './fetch-settings.js';
import { runVerifier } from './trust.js';

/** The ssh signature namespace of a settings file: a signature made for git or for another use does not verify. */
export const SIGNATURE_NAMESPACE = 'agent-settings';
const MAX_SIGNATURE_BYTES = 64 * 1024;

export interface DetachedOptions {
  url: string;
  signatureUrl: string;
  allowedSigners: string;
  revision: string;
  fetch: Pick<FetchOptions, 'timeoutMs' | 'ca' | 'insecure'>;
}

/** A detached signature that verified, with who made it; the cache keeps the text to check it again at start. */
export interface DetachedSignature {
  signedBy: string;
  signature: string;
}

/** Throws AGENT_ERR_SOURCE_SIGNATURE unless `body` carries a good signature by a key of allowed signers. */
export async function verifyDetached(body: Buffer, o: DetachedOptions): Promise<DetachedSignature> {
  const sigUrl = o.signatureUrl || `${o.url}.sig`;
  const refuse = (why: string): AgentError =>
    new AgentError('AGENT_ERR_SOURCE_SIGNATURE', [o.url, `revision ${o.revision}: ${why}`]);
  const got = await fetchSettings(sigUrl, { ...o.fetch, maxBytes: MAX_SIGNATURE_BYTES }).catch((err: unknown) => {
    throw refuse(`no signature at ${sigUrl} (${errorMessage(err)})`);
  });
  if (!got.changed) throw refuse(`no signature at ${sigUrl} (HTTP 304 to an unconditional request)`);
  const signature = got.body.toString('latin1');
  const signedBy = await checkSignature(body, signature, o.allowedSigners, o.fetch.timeoutMs, (why) =>
    refuse(`${sigUrl} ${why}`),
  );
  return { signedBy, signature };
}

/**
 * Resolves with the allowed signer whose key made `signature` (an armored
 * ssh signature, namespace SIGNATURE_NAMESPACE) of `body`; throws what
 * `refuse` makes of the reason otherwise.
 */
export async function checkSignature(
  body: Buffer,
  signature: string,
  allowedSigners: string,
  timeoutMs: number,
  refuse: (why: string) => Error,
): Promise<string> {
  if (!signature.trimStart().startsWith('-----BEGIN SSH SIGNATURE-----'))
    throw refuse(`is not an ssh signature (ssh-keygen -Y sign -n ${SIGNATURE_NAMESPACE})`);
  const dir = mkdtempSync(join(tmpdir(), 'agent-signature-'));
  try {
    const sig = join(dir, 'settings.sig');
    writeFileSync(sig, signature, { mode: 0o600, encoding: 'latin1' });
    const run = { timeoutMs };
    const who = await runVerifier('ssh-keygen', ['-Y', 'find-principals', '-s', sig, '-f', allowedSigners], run);
    const principal = who.stdout.split('\n')[0]?.trim() ?? '';
    if (!who.ok || principal === '')
      throw refuse(`is made by a key that is not in ${allowedSigners} (${who.said || 'no principal'})`);
    const args = ['-Y', 'verify', '-f', allowedSigners, '-I', principal, '-n', SIGNATURE_NAMESPACE, '-s', sig];
    const check = await runVerifier('ssh-keygen', args, { ...run, input: body });
    if (!check.ok) throw refuse(`does not verify (${check.said || 'bad signature'})`);
    return principal;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
