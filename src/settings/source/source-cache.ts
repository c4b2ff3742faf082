/**
 * The last good pull, kept in the state folder: `pulled.ini` (the text, the
 * settings tree's lowest layer: settings/model/source-layer.ts) and `pulled.json`
 * (where it came from and its revision: the ETag, else the body's SHA-256;
 * Last-Modified; when it was pulled; where the file is in its repository
 * and the files it includes, kept in `pulled-files/` at their paths there:
 * settings/store/pulled-includes.ts). All are written 0600 in 0700 folders, each
 * by a rename over the old one, the included files first, then the text:
 * a crash between them leaves a text whose revision the next pull
 * compares by hash, never a half file.
 */
import {
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { metaFile, pulledFilesRoot } from '../store/pulled-includes.js';

export { metaFile };
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
  /** Where the source's file is in its repository (settings/store/pulled-includes.ts resolves its includes from there). */
  location?: string | undefined;
  /** A git pull can be listed: its includes may name folders and patterns (settings/store/pulled-includes.ts). */
  kind?: 'git' | 'https' | undefined;
  /** The files it includes, kept in `pulled-files/` beside it (pulled-bundle.ts). */
  files?: PulledFile[] | undefined;
}

/** A file the source's file includes: its path in the repository, and for an https one its validators and signature. */
export interface PulledFile {
  path: string;
  sha256: string;
  etag?: string | undefined;
  lastModified?: string | undefined;
  signedBy?: string | undefined;
  signature?: string | undefined;
}

/** How many replaced revisions a cache remembers to refuse them again. */
export const HISTORY_SIZE = 1000;

/** What the cache says about its text, or undefined when there is none (or it cannot be read). */
export function readCachedPull(cacheFile: string): CachedPull | undefined {
  try {
    const meta = JSON.parse(readFileSync(metaFile(cacheFile), 'utf8')) as CachedPull;
    return typeof meta.revision === 'string' && typeof meta.url === 'string' ? meta : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Replace the cached text, the files it includes (`files`: by path in the repository) and its
 * description (0600, each by rename; the included files' folder is written beside the old one and
 * swapped in before the text that includes them).
 */
export function writeCachedPull(
  cacheFile: string,
  body: Buffer,
  meta: CachedPull,
  files: ReadonlyMap<string, Buffer> = new Map(),
): void {
  mkdirSync(dirname(cacheFile), { recursive: true, mode: 0o700 });
  const root = pulledFilesRoot(cacheFile);
  const suffix = randomBytes(6).toString('hex');
  if (files.size > 0) {
    const next = `${root}.${suffix}.tmp`;
    for (const [path, text] of files) {
      const file = join(next, ...path.split('/'));
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      replaceFile(file, text);
    }
    ownLikeParent(next);
    if (existsSync(root)) renameSync(root, `${root}.${suffix}.old`);
    renameSync(next, root);
  } else if (existsSync(root)) renameSync(root, `${root}.${suffix}.old`);
  rmSync(`${root}.${suffix}.old`, { recursive: true, force: true });
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

/** Root writes for the agent: a folder it made (and what is in it) belongs to its parent's owner. */
function ownLikeParent(folder: string): void {
  if (process.getuid?.() !== 0) return;
  const owner = statSync(dirname(folder));
  const walk = (path: string): void => {
    chownSync(path, owner.uid, owner.gid);
    if (statSync(path).isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(folder);
}
