/**
 * One pull of the configured source, whichever kind it is: a file over
 * http(s) (fetch-settings.ts: conditional on the cached ETag and
 * Last-Modified; its detached signature checked when signatures are
 * required: verify-detached.ts) or a file in a git repository
 * (fetch-git.ts: conditional on the cached commit; the commit's or tag's
 * signature checked: verify-git.ts). A refused signature is
 * AGENT_ERR_SOURCE_SIGNATURE; any other failure a plain Error saying why.
 */
import { readFileSync } from 'node:fs';
import { AgentError, errorMessage } from '../../errors.js';
import { hashBytes } from '../model/file-hash.js';
import { fetchSettings } from './fetch-settings.js';
import { fetchGit } from './fetch-git.js';
import type { CachedPull } from './source-cache.js';
import type { SourceConfig } from './source-config.js';
import { signaturesRequired } from './trust.js';
import { verifyDetached } from './verify-detached.js';

export type SourceFetch =
  | { changed: false }
  | {
      changed: true;
      body: Buffer;
      revision?: string | undefined;
      etag?: string | undefined;
      lastModified?: string | undefined;
      /** What the next conditional request may send back (fetch-settings.ts strongValidators); none: unconditional. */
      validators?: { etag: string | undefined; lastModified: string | undefined } | undefined;
      /** The allowed signer whose key signed an https file. */
      signedBy?: string | undefined;
      /** That file's detached signature, kept with the cache to verify it again at start. */
      signature?: string | undefined;
    };

/**
 * The revision a fetched body is known by: the commit, else the ETag, else its hash (`sha256`, the
 * body's hashBytes() when the caller has it already).
 */
export function revisionOf(
  got: { body: Buffer; revision?: string | undefined; etag?: string | undefined },
  sha256?: string,
): string {
  return got.revision ?? got.etag ?? `sha256:${sha256 ?? hashBytes(got.body)}`;
}

export async function fetchSource(
  cfg: SourceConfig,
  same: CachedPull | undefined,
  repoDir: string,
): Promise<SourceFetch> {
  if (cfg.path !== '')
    return fetchGit({
      url: cfg.url,
      ref: cfg.ref,
      path: cfg.path,
      timeoutMs: cfg.timeoutMs,
      maxBytes: cfg.maxBytes,
      repoDir,
      known: same?.revision,
      ca: cfg.ca || undefined,
      insecure: cfg.insecure,
      trust: cfg,
    });
  const fetch = httpsGuards(cfg);
  const got = await fetchSettings(cfg.url, {
    ...fetch,
    maxBytes: cfg.maxBytes,
    etag: same?.etag,
    lastModified: same?.lastModified,
  });
  if (!got.changed || !signaturesRequired(cfg)) return got;
  return { ...got, ...(await signedOver(cfg, got.body, cfg.url, cfg.signatureUrl, revisionOf(got))) };
}

/** The guards of a request over http(s): the time limit, the CAs (read from `ca`), `insecure`. */
export function httpsGuards(cfg: SourceConfig): { timeoutMs: number; ca: string | undefined; insecure: boolean } {
  try {
    const ca = cfg.ca === '' ? undefined : readFileSync(cfg.ca, 'utf8');
    return { timeoutMs: cfg.timeoutMs, ca, insecure: cfg.insecure };
  } catch (err) {
    throw new Error(`cannot read the ca file ${cfg.ca}: ${errorMessage(err)}`, { cause: err });
  }
}

/** The detached signature of `body` fetched from `url` (verify-detached.ts); AGENT_ERR_SOURCE_SIGNATURE unless it holds. */
export async function signedOver(
  cfg: SourceConfig,
  body: Buffer,
  url: string,
  signatureUrl: string,
  revision: string,
): Promise<{ signedBy: string; signature: string }> {
  if (cfg.allowedSigners === '')
    throw new AgentError('AGENT_ERR_SOURCE_SIGNATURE', [
      cfg.url,
      'a file pulled over http(s) is checked against allowed signers (ssh); gpg keyring applies to git sources only',
    ]);
  const fetch = httpsGuards(cfg);
  return verifyDetached(body, { url, signatureUrl, allowedSigners: cfg.allowedSigners, revision, fetch });
}
