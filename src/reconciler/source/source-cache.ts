/**
 * The last good pull, kept in the state folder: `pulled.ini` (the text, the
 * settings tree's lowest layer: settings/source-layer.ts) and `pulled.json`
 * (where it came from and its revision: the ETag, else the body's SHA-256;
 * Last-Modified; when it was pulled). Both are written 0600 in a 0700
 * folder, each by a rename over the old one, the text first: a crash
 * between the two leaves a text whose revision the next pull compares by
 * hash, never a half file.
 */
import { chownSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

export interface CachedPull {
  url: string;
  /** The ETag as the server sent it, else `sha256:` and the body's hash. */
  revision: string;
  etag?: string | undefined;
  lastModified?: string | undefined;
  sha256: string;
  /** ISO time of the pull that fetched this text. */
  pulledAt: string;
  /** The keys its signature was verified against (trust.ts trustId), when one was required. */
  verifiedWith?: string | undefined;
  /** Who signed it (an https file's allowed signer), when known. */
  signedBy?: string | undefined;
  /** An https file's detached signature, verified again at start (verify-cache.ts). */
  signature?: string | undefined;
  /** The SHA-256 of the revisions applied before this one, oldest first (at most HISTORY_SIZE): none may come back. */
  history?: string[] | undefined;
}

/** How many replaced revisions a cache remembers to refuse them again. */
export const HISTORY_SIZE = 1000;

/** The description beside a cached text: `pulled.ini` -> `pulled.json` (a remote include's `<hash>.ini` -> `<hash>.json`). */
export function metaFile(cacheFile: string): string {
  return join(dirname(cacheFile), `${basename(cacheFile, '.ini')}.json`);
}

/** What the cache says about its text, or undefined when there is none (or it cannot be read). */
export function readCachedPull(cacheFile: string): CachedPull | undefined {
  try {
    const meta = JSON.parse(readFileSync(metaFile(cacheFile), 'utf8')) as CachedPull;
    return typeof meta.revision === 'string' && typeof meta.url === 'string' ? meta : undefined;
  } catch {
    return undefined;
  }
}

/** Replace the cached text and its description (0600, each by rename). */
export function writeCachedPull(cacheFile: string, body: Buffer, meta: CachedPull): void {
  mkdirSync(dirname(cacheFile), { recursive: true, mode: 0o700 });
  replaceFile(cacheFile, body);
  replaceFile(metaFile(cacheFile), Buffer.from(`${JSON.stringify(meta, null, 2)}\n`, 'utf8'));
}

function replaceFile(file: string, bytes: Buffer): void {
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(tmp, bytes, { mode: 0o600, flag: 'wx' });
  // Root (`sudo config-agent settings pull`) writes for the agent: the files belong to the state folder's owner.
  if (process.getuid?.() === 0) {
    const owner = statSync(dirname(file));
    chownSync(tmp, owner.uid, owner.gid);
  }
  renameSync(tmp, file);
}
