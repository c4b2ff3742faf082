/**
 * The cached pulls checked again at start, with the keys the settings name
 * now, before the agent runs on them: a file in the state folder is no
 * more trusted than a server. For a source that requires signatures, each
 * cached text (the source's and each remote include's) must:
 * - have been verified with these keys (trust.ts trustId in its description);
 * - still be the text that was verified (its SHA-256);
 * - verify again: an https file against the detached signature kept with
 *   it, a git file as the file at its commit in the cache repository, that
 *   commit (or the tag the ref names) signed by a trusted key (the ref of
 *   the applied pull: a refused pull fetched after it moves no cache aside);
 * - and so must each file the source's file includes (`pulled-files/`),
 *   and the files its text includes, walked again, must be the ones
 *   described with it (a description edited to leave one out, or to move
 *   the file elsewhere in its repository, is caught).
 * A cache that fails is moved aside (`pulled.ini.unverified`), logged
 * (AGENT_ERR_SOURCE_CACHE_UNVERIFIED) and the agent starts without it, so
 * the first poll pulls at once. Loaded only when signatures are required.
 */
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AgentError, errorMessage, formatMessage } from '../../errors.js';
import { sink } from '../../log.js';
import type { Snapshot } from '../model/snapshot.js';
import { hashBytes } from '../model/file-hash.js';
import { appliedRef, committedFile, fetchedCommit } from './fetch-git.js';
import { metaFile, readCachedPull, type CachedPull, type PulledFile } from './source-cache.js';
import { locationOf, pullBundle, type Reader } from './pulled-bundle.js';
import { cacheFileOf, sourceConfig, sourceId, type SourceConfig } from './source-config.js';
import { signaturesRequired, trustId } from './trust.js';
import { checkSignature } from './verify-detached.js';
import { verifyGitObject } from './verify-git.js';
import { pulledFilesRoot } from '../store/pulled-includes.js';

const log = sink.logger('agent:settings-source');

/** Check every cached pull of `settings`; resolves true when one was moved aside (the settings must be read again). */
export async function verifyCachedPulls(settings: Snapshot): Promise<boolean> {
  const cfg = sourceConfig(settings);
  if (!signaturesRequired(cfg)) return false;
  const caches: [SourceConfig, string][] = (settings.remoteIncludes ?? []).map((i) => [
    { ...cfg, url: i.url, path: '', ref: 'HEAD', sha256: '', signatureUrl: '' },
    i.cache,
  ]);
  if (cfg.url !== '') caches.unshift([cfg, cacheFileOf(settings.file)]);
  let moved = false;
  for (const [own, file] of caches) {
    if (!existsSync(file)) continue;
    const why = await problemOf(own, file, own === cfg).catch((err: unknown) => errorMessage(err));
    if (why === undefined) continue;
    const aside = `${file}.unverified`;
    renameSync(file, aside);
    if (existsSync(metaFile(file))) renameSync(metaFile(file), `${metaFile(file)}.unverified`);
    log.error(
      `AGENT_ERR_SOURCE_CACHE_UNVERIFIED: ${formatMessage('AGENT_ERR_SOURCE_CACHE_UNVERIFIED', [own.url, why, aside])}`,
    );
    moved = true;
  }
  return moved;
}

/**
 * Why the source's cached pull is not the whole that was verified: its place in the repository
 * is not the source's, or the files its text includes (walked again: from the applied commit for
 * git, from the cache for https) are not the files described with it. Undefined when it is.
 */
async function wholeProblem(
  cfg: SourceConfig,
  file: string,
  body: Buffer,
  meta: CachedPull,
): Promise<string | undefined> {
  if (meta.location !== undefined && meta.location !== locationOf(cfg))
    return `it describes itself as ${meta.location}, not ${locationOf(cfg)}`;
  const root = pulledFilesRoot(file);
  const known = new Map((meta.files ?? []).map((f) => [f.path, f]));
  // https: no server at start; a file of the cache is read only when the description lists it.
  const fromCache: Reader = async (path) => {
    const f = known.get(path);
    if (!f) throw new Error(`it includes ${path}, which was not verified with it`);
    return { body: readFileSync(join(root, ...path.split('/'))), meta: f };
  };
  const repoDir = join(dirname(file), 'repo.git');
  const walked = await pullBundle(cfg, body, meta.revision, {
    repoDir,
    cacheFile: file,
    cached: undefined,
    ...(cfg.path === '' ? { read: fromCache } : {}),
  });
  const list = (files: readonly PulledFile[]): string => files.map((f) => `${f.path} ${f.sha256}`).join('\n');
  if (list(walked.meta) !== list(meta.files ?? [])) return 'the files it includes are not the ones verified with it';
  return undefined;
}

/** Why the cached text `file` of `cfg` cannot be trusted, or undefined when it verifies; `own`: the source's own pull. */
async function problemOf(cfg: SourceConfig, file: string, own: boolean): Promise<string | undefined> {
  const meta = readCachedPull(file);
  if (!meta) return 'it has no readable description beside it';
  if (meta.url !== sourceId(cfg)) return `it was pulled from ${meta.url}`;
  if (meta.verifiedWith !== trustId(cfg)) return 'it was not verified with the keys the settings name now';
  const body = readFileSync(file);
  const sha256 = hashBytes(body);
  if (sha256 !== meta.sha256) return `its text is not the one that was verified (SHA-256 ${sha256})`;
  // The files it includes (pulled-bundle.ts), each as the text verified with it.
  const root = pulledFilesRoot(file);
  const included = (meta.files ?? []).map((f) => ({ ...f, body: readFileSync(join(root, ...f.path.split('/'))) }));
  for (const f of included)
    if (hashBytes(f.body) !== f.sha256) return `${f.path}, which it includes, is not the text that was verified`;
  if (own) {
    const whole = await wholeProblem(cfg, file, body, meta);
    if (whole !== undefined) return whole;
  }
  if (cfg.path === '') {
    for (const f of [{ path: '', body, signature: meta.signature }, ...included]) {
      const what = f.path === '' ? 'its signature' : `the signature of ${f.path}, which it includes,`;
      if (f.signature === undefined) return `no signature was kept with ${f.path || 'it'}`;
      await checkSignature(
        f.body,
        f.signature,
        cfg.allowedSigners,
        cfg.timeoutMs,
        (why) => new Error(`${what} ${why}`),
      );
    }
    return undefined;
  }
  const repoDir = join(dirname(file), 'repo.git');
  // What was applied, not what a refused pull fetched after it.
  const ref = await appliedRef(repoDir, cfg.timeoutMs);
  const commit = await fetchedCommit(repoDir, cfg.timeoutMs, ref);
  if (commit !== meta.revision) return `the cache repository holds commit ${commit}, not ${meta.revision}`;
  await verifyGitObject(repoDir, ref, cfg, cfg.timeoutMs).catch((err: unknown) => {
    throw err instanceof AgentError ? new Error(err.message) : err;
  });
  for (const f of [{ path: cfg.path, body }, ...included]) {
    const committed = await committedFile(repoDir, commit, f.path, cfg.timeoutMs, cfg.maxBytes);
    if (!committed.equals(f.body)) return `${f.path === cfg.path ? 'it' : f.path} is not ${f.path} of commit ${commit}`;
  }
  return undefined;
}
