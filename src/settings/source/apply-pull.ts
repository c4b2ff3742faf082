/**
 * One pull of the source and what becomes of it:
 * 1. fetches conditionally (fetch-source.ts): a 304 or the same commit
 *    changes nothing, unless signatures are required and the cached pull
 *    was not verified against the keys now configured (trust.ts): then the
 *    fetch is unconditional and the signature checked again; an https
 *    file's includes are asked for even after a 304 (pulled-bundle.ts);
 * 2. refuses a body whose SHA-256 is not the pinned `sha256`, or whose
 *    required signature does not verify (fetch-source.ts); reads the files
 *    the source's file includes at the same commit or origin;
 * 3. loads the whole tree with the body (and what it includes) in place of
 *    the cached pull (settings/model/source-layer.ts, settings/store/pulled-includes.ts)
 *    and refuses it when anything does not
 *    validate: nothing partial, oversized, unsigned or invalid reaches the
 *    cache;
 * 4. writes the cache (source-cache.ts) and asks the host to reload, which
 *    reads the tree with the new pull as its lowest layer.
 * Every refusal throws an AgentError with its code; nothing is applied then.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sink } from '../../log.js';
import { AgentError, errorMessage } from '../../errors.js';
import { SettingsReader } from '../store/includes.js';
import { loadSettingsFile } from '../store/load-file.js';
import { describeProblem } from '../model/problem.js';
import { hashBytes } from '../model/file-hash.js';
import type { Snapshot } from '../model/snapshot.js';
import { fetchSource, revisionOf, type SourceFetch } from './fetch-source.js';
import { bundleId, pullBundle, seedReader, type Bundle } from './pulled-bundle.js';
import { markApplied } from './fetch-git.js';
import { HISTORY_SIZE, readCachedPull, writeCachedPull, type CachedPull } from './source-cache.js';
import { sourceId, type SourceConfig } from './source-config.js';
import { trustId } from './trust.js';
import { isoTime } from '../../iso-time.js';

const log = sink.logger('agent:settings-source');

export interface SourceHost {
  settings(): Snapshot;
  /**
   * Apply the new cache (the agent's reconciler; the CLI only reads it again). All a pull needs of
   * the outcome: `lastResult` is `'invalid'` when the reload refused the settings (the reconciler's
   * status has this field, so it is the host as it is).
   */
  reload(reason: string): Promise<{ readonly lastResult: string }>;
}

export type PullOutcome = { changed: false } | { changed: true; revision: string; at: string };

/** Pull `cfg` into the cache `file` and apply it; `inForce` is the revision the settings hold now (null: none). */
export async function pullAndApply(
  host: SourceHost,
  cfg: SourceConfig,
  file: string,
  inForce: string | null,
  reason: string,
  /** The source's own file (false: a remote include, which includes nothing). */
  ownIncludes = true,
): Promise<PullOutcome> {
  const cached = readCachedPull(file);
  const same = cached?.url === sourceId(cfg) ? cached : undefined;
  const trust = trustId(cfg);
  // A cached pull not verified against these keys is no basis for "unchanged".
  const basis = same && (trust === '' || same.verifiedWith === trust) ? same : undefined;
  const repoDir = join(dirname(file), 'repo.git');
  let got = await fetchSource(cfg, basis, repoDir).catch((err: unknown) => {
    if (err instanceof AgentError) throw err;
    throw new AgentError('AGENT_ERR_SOURCE_PULL', [cfg.url, errorMessage(err)]);
  });
  const pulled = { repoDir, cacheFile: file, cached: basis };
  let bundle: Bundle | undefined;
  if (!got.changed && ownIncludes && basis?.files?.length && cfg.path === '') {
    // An https file unchanged (304): what it includes may have changed (a commit's files are the commit's).
    const body = readFileSync(file);
    bundle = await pullBundle(cfg, body, basis.revision, pulled);
    if (bundleId(basis.sha256, bundle.meta) !== bundleId(basis.sha256, basis.files))
      got = { changed: true, body, ...pick(basis) };
  }
  if (!got.changed) {
    // A 304 (or the same commit) for the cached text: a pin that is not its hash still refuses it.
    if (cfg.sha256 !== '' && same && same.sha256 !== cfg.sha256)
      throw new AgentError('AGENT_ERR_SOURCE_INVALID', [
        cfg.url,
        same.revision,
        `its SHA-256 is ${same.sha256}, not the pinned ${cfg.sha256}`,
      ]);
    log.debug(`settings source ${cfg.url}: unchanged (${reason})`);
    return { changed: false };
  }
  const sha256 = hashBytes(got.body);
  let revision = revisionOf(got, sha256);
  if (cfg.sha256 !== '' && sha256 !== cfg.sha256)
    throw new AgentError('AGENT_ERR_SOURCE_INVALID', [
      cfg.url,
      revision,
      `its SHA-256 is ${sha256}, not the pinned ${cfg.sha256}`,
    ]);
  if (ownIncludes) bundle ??= await pullBundle(cfg, got.body, revision, pulled);
  const files = bundle?.meta ?? [];
  // An https file with what it includes is known by the hash of all of them (a commit by its id).
  if (files.length > 0 && cfg.path === '') revision = `sha256:${bundleId(sha256, files)}`;
  const id = bundleId(sha256, files);
  if (basis && trust !== '' && !cfg.allowRollback) await refuseRollback(cfg, basis, { revision, sha256: id }, repoDir);
  const meta: CachedPull = {
    url: sourceId(cfg),
    revision,
    // Kept for the next conditional request only when RFC 9110 calls them strong (fetch-settings.ts).
    etag: got.validators?.etag,
    lastModified: got.validators?.lastModified,
    sha256,
    pulledAt: isoTime(Date.now()),
    ...(trust === '' ? {} : { verifiedWith: trust, signedBy: got.signedBy, signature: got.signature }),
    history: historyAfter(same, id),
    ...(bundle ? { location: bundle.location, kind: bundle.kind } : {}),
    ...(files.length > 0 ? { files } : {}),
  };
  const body = got.body;
  const keep = async (): Promise<void> => {
    writeCachedPull(file, body, meta, bundle?.files);
    if (cfg.path !== '') await markApplied(repoDir, cfg.timeoutMs);
  };
  if (same && bundleId(same.sha256, same.files) === id && inForce !== null) {
    // The same text under a new ETag (another server of a pool), or verified again: remember it, apply nothing.
    await keep();
    return { changed: false };
  }
  await validate(host, file, body, bundle, { url: cfg.url, revision });
  await keep();
  const status = await host.reload(`settings pulled from ${cfg.url}, revision ${revision} (${reason})`);
  if (status.lastResult === 'invalid')
    throw new AgentError('AGENT_ERR_SOURCE_INVALID', [
      cfg.url,
      revision,
      'the reload after the pull was refused (see the settings problems)',
    ]);
  const signed = got.signedBy ? `, signed by ${got.signedBy}` : trust === '' ? '' : ', signature verified';
  log.info(`settings source ${cfg.url}: applied revision ${revision}${signed}`);
  return { changed: true, revision, at: meta.pulledAt };
}

/** Throw AGENT_ERR_SOURCE_INVALID unless the tree, with `body` (and what it includes) as the pulled layer, loads. */
async function validate(
  host: SourceHost,
  file: string,
  body: Buffer,
  bundle: Bundle | undefined,
  { url, revision }: { url: string; revision: string },
): Promise<void> {
  const reader = new SettingsReader();
  if (bundle) await seedReader(reader, file, body, bundle);
  else await reader.source(file, body);
  const loaded = await loadSettingsFile(host.settings().file, { reader });
  if (loaded.ok) return;
  const shown = loaded.problems.slice(0, 5).map((p) => describeProblem(p));
  const more = loaded.problems.length > 5 ? `; and ${loaded.problems.length - 5} more` : '';
  throw new AgentError('AGENT_ERR_SOURCE_INVALID', [
    url,
    revision,
    `${loaded.problems.length} problem(s): ${shown.join('; ')}${more}`,
  ]);
}

/**
 * AGENT_ERR_SOURCE_ROLLBACK when a signed pull is older than the verified
 * revision in force: a git commit that does not descend from it (a
 * force-push back to an older signed commit), or an https file this agent
 * applied before and has since replaced (an old file served again with its
 * old `.sig`: an ssh signature carries no time, so the cache remembers the
 * hashes of the revisions it replaced). `allow rollback` lifts it.
 */
async function refuseRollback(
  cfg: SourceConfig,
  inForce: CachedPull,
  /** `sha256`: the bundleId of the text and what it includes. */
  next: { revision: string; sha256: string },
  repoDir: string,
): Promise<void> {
  if (next.sha256 === bundleId(inForce.sha256, inForce.files)) return;
  let why: string | undefined;
  if (cfg.path !== '') {
    const { isAncestor } = await import('./fetch-git.js');
    if (!(await isAncestor(repoDir, inForce.revision, next.revision, cfg.timeoutMs)))
      why = `commit ${next.revision} does not descend from ${inForce.revision}, the commit in force`;
  } else if (inForce.history?.includes(next.sha256) === true) {
    why = 'this agent applied the same file before and has since replaced it';
  }
  if (why !== undefined) throw new AgentError('AGENT_ERR_SOURCE_ROLLBACK', [cfg.url, next.revision, why]);
}

/** The hashes a cache remembers after `next` (a bundleId) replaces `same`'s text (none may come back). */
function historyAfter(same: CachedPull | undefined, next: string): string[] {
  const before = same?.history ?? [];
  const was = same ? bundleId(same.sha256, same.files) : undefined;
  if (!same || was === next || was === undefined) return before;
  return [...before.filter((h) => h !== next && h !== was), was].slice(-HISTORY_SIZE);
}

/** What a cached pull says of its source file, as a fetch would (its validators and signature). */
function pick(c: CachedPull): Omit<Extract<SourceFetch, { changed: true }>, 'changed' | 'body'> {
  const validators = { etag: c.etag, lastModified: c.lastModified };
  return { revision: c.revision, etag: c.etag, validators, signedBy: c.signedBy, signature: c.signature };
}
