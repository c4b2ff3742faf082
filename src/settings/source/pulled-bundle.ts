/**
 * The files the source's pulled file includes (settings/store/pulled-includes.ts),
 * pulled with it as one bundle, so that what is validated, cached and
 * applied is always a whole (nothing half of one commit):
 * - a git source: each file `git cat-file` at the same commit in the cache
 *   repository, after the commit's signature was verified (fetch-git.ts);
 *   a folder or pattern include is listed with `git ls-tree` at that
 *   commit; a named folder, a symbolic link or a file over `max size` is
 *   refused;
 * - an https source: each file from the same origin with the source's
 *   guards (fetch-settings.ts: time limit, CA, content type, size), its
 *   detached signature at its URL + `.sig` verified when signatures are
 *   required (verify-detached.ts), conditional on its own cached validators:
 *   a poll whose source file is unchanged (304) still asks for each
 *   included file, so a change of the base alone is applied.
 * Nested includes are followed up to MAX_INCLUDE_DEPTH, at most
 * MAX_PULLED_FILES files. A file that cannot be read refuses the pull
 * (AGENT_ERR_SOURCE_INVALID for a file the commit lacks or the server
 * answers 404 or 410 for: polled again at the interval, as any refused
 * text; else AGENT_ERR_SOURCE_PULL); the loader reports what the walk does not
 * (cycles, refused paths) with file and line when the tree is validated.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import { AgentError, errorMessage } from '../../errors.js';
import { MAX_INCLUDE_DEPTH, type SettingsReader } from '../store/includes.js';
import { hostPlaceholders } from '../model/host-placeholders.js';
import { hashBytes } from '../model/file-hash.js';
import { matchingFiles, pulledFilesRoot, pulledIncludes } from '../store/pulled-includes.js';
import { parseIni } from '../ini/read-ini.js';
import { committedNames, committedRegularFile } from './fetch-git.js';
import { fetchSettings } from './fetch-settings.js';
import { httpsGuards, signedOver } from './fetch-source.js';
import type { CachedPull, PulledFile } from './source-cache.js';
import type { SourceConfig } from './source-config.js';
import { signaturesRequired } from './trust.js';

/** At most this many files in one pull besides the source's own. */
export const MAX_PULLED_FILES = 256;

export interface Bundle {
  /** git: the commit can be listed, so includes may name folders and patterns. */
  kind: 'git' | 'https';
  /** Where the source's file is in its repository (git: `path`; https: the URL's path). */
  location: string;
  /** Each included file's text by its path in the repository. */
  files: Map<string, Buffer>;
  meta: PulledFile[];
}

/** Where the source's file is in its repository: the git `path`, or the URL's path from the origin's root. */
export function locationOf(cfg: Pick<SourceConfig, 'url' | 'path'>): string {
  return posix.normalize((cfg.path !== '' ? cfg.path : new URL(cfg.url).pathname).replace(/^\/+/, ''));
}

/**
 * Read what `body` (the source's file at `revision`) includes, recursively.
 * `cached`: the cache in force (its files' validators make an https request
 * conditional; a 304 takes the cached text).
 */
export async function pullBundle(
  cfg: SourceConfig,
  body: Buffer,
  revision: string,
  o: { repoDir: string; cacheFile: string; cached: CachedPull | undefined; read?: Reader },
): Promise<Bundle> {
  const location = locationOf(cfg);
  const files = new Map<string, Buffer>();
  const meta: PulledFile[] = [];
  const hostVars = hostPlaceholders();
  const git = cfg.path !== '';
  const read = o.read ?? (git ? gitReader(cfg, revision, o.repoDir) : httpsReader(cfg, revision, o));
  const walk = async (text: Buffer, at: string, depth: number): Promise<void> => {
    if (depth > MAX_INCLUDE_DEPTH) return;
    for (const inc of pulledIncludes(parseIni(text.toString('utf8'), at), at, at, hostVars, git)) {
      if ('problem' in inc) continue;
      const where = `${at} line ${inc.line}`;
      const paths =
        'path' in inc.target ? [inc.target.path] : await listed(cfg, revision, o.repoDir, inc.target, where);
      for (const path of paths) {
        if (path === location || files.has(path)) continue;
        if (files.size >= MAX_PULLED_FILES)
          throw new AgentError('AGENT_ERR_SOURCE_INVALID', [cfg.url, revision, `more than ${MAX_PULLED_FILES} files`]);
        const got = await read(path, where);
        files.set(path, got.body);
        meta.push(got.meta);
        await walk(got.body, path, depth + 1);
      }
    }
  };
  await walk(body, location, 1);
  return { kind: git ? 'git' : 'https', location, files, meta };
}

/** One hash for the source's file and what it includes: the file's own SHA-256 when it includes nothing. */
export function bundleId(sha256: string, files: readonly PulledFile[] | undefined): string {
  if (!files || files.length === 0) return sha256;
  const h = createHash('sha256').update(`${sha256}\n`);
  for (const f of files) h.update(`${f.path}\0${f.sha256}\n`);
  return h.digest('hex');
}

/** Give `reader` the pull as if it were cached at `cacheFile` (the source's file, where it is, what it includes). */
export async function seedReader(
  reader: SettingsReader,
  cacheFile: string,
  body: Buffer,
  bundle: Bundle,
): Promise<void> {
  await reader.source(cacheFile, body);
  const files = bundle.kind === 'git' ? [...bundle.files.keys()] : undefined;
  reader.locations.set(resolve(cacheFile), { location: bundle.location, files });
  const root = pulledFilesRoot(resolve(cacheFile));
  for (const [path, text] of bundle.files) await reader.source(join(root, ...path.split('/')), text);
}

/** How a file of the pull is read (by default from the commit, or the origin; verify-cache.ts reads the cache). */
export type Reader = (path: string, where: string) => Promise<{ body: Buffer; meta: PulledFile }>;

/** The files of the commit a folder or pattern names (`git ls-tree`), as the loader expands it (matchingFiles). */
async function listed(
  cfg: SourceConfig,
  commit: string,
  repoDir: string,
  target: { folder: string; pattern: string },
  where: string,
): Promise<string[]> {
  const names = await committedNames(repoDir, commit, target.folder, cfg.timeoutMs).catch((err: unknown) => {
    throw new AgentError('AGENT_ERR_SOURCE_PULL', [
      cfg.url,
      `${target.folder}/ (included at ${where}): ${errorMessage(err)}`,
    ]);
  });
  return matchingFiles(target, names);
}

function gitReader(cfg: SourceConfig, commit: string, repoDir: string): Reader {
  return async (path, where) => {
    const got = await committedRegularFile(repoDir, commit, path, cfg.timeoutMs, cfg.maxBytes).catch((err: unknown) => {
      throw new AgentError('AGENT_ERR_SOURCE_PULL', [cfg.url, `${path} (included at ${where}): ${errorMessage(err)}`]);
    });
    if (!Buffer.isBuffer(got))
      throw new AgentError('AGENT_ERR_SOURCE_INVALID', [cfg.url, commit, `${where} includes ${path}: ${got.why}`]);
    return { body: got, meta: { path, sha256: hashBytes(got) } };
  };
}

function httpsReader(
  cfg: SourceConfig,
  revision: string,
  o: { cacheFile: string; cached: CachedPull | undefined },
): Reader {
  const origin = new URL(cfg.url).origin;
  const root = pulledFilesRoot(o.cacheFile);
  return async (path, where) => {
    const url = new URL(`/${path}`, origin).href;
    const before = o.cached?.files?.find((f) => f.path === path);
    const kept = join(root, ...path.split('/'));
    // Conditional only on a cached text that is still the one described.
    const cachedBody = before && existsSync(kept) ? readFileSync(kept) : undefined;
    const usable = cachedBody !== undefined && hashBytes(cachedBody) === before?.sha256 ? before : undefined;
    const got = await fetchSettings(url, {
      ...httpsGuards(cfg),
      maxBytes: cfg.maxBytes,
      etag: usable?.etag,
      lastModified: usable?.lastModified,
    }).catch((err: unknown) => {
      const why = errorMessage(err);
      // The server answered that the named file is not there: the text that names it is refused (a fix is a push away).
      if (/^HTTP (404|410)\b/.test(why))
        throw new AgentError('AGENT_ERR_SOURCE_INVALID', [cfg.url, revision, `${where} includes ${url}: ${why}`]);
      throw new AgentError('AGENT_ERR_SOURCE_PULL', [cfg.url, `${url} (included at ${where}): ${why}`]);
    });
    if (!got.changed) {
      if (usable && cachedBody) return { body: cachedBody, meta: usable };
      throw new AgentError('AGENT_ERR_SOURCE_PULL', [cfg.url, `${url}: HTTP 304 to an unconditional request`]);
    }
    const signed = signaturesRequired(cfg) ? await signedOver(cfg, got.body, url, '', revision) : {};
    const meta: PulledFile = { path, sha256: hashBytes(got.body), ...got.validators, ...signed };
    return { body: got.body, meta };
  };
}
