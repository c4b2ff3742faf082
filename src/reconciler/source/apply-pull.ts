/**
 * One pull of the source and what becomes of it:
 * 1. fetches conditionally (fetch-source.ts): a 304 or the same commit
 *    changes nothing, unless signatures are required and the cached pull
 *    was not verified against the keys now configured (trust.ts): then the
 *    fetch is unconditional and the signature checked again;
 * 2. refuses a body whose SHA-256 is not the pinned `sha256`, or whose
 *    required signature does not verify (fetch-source.ts);
 * 3. loads the whole tree with the body in place of the cached pull
 *    (settings/source-layer.ts) and refuses it when anything does not
 *    validate: nothing partial, oversized, unsigned or invalid reaches the
 *    cache;
 * 4. writes the cache (source-cache.ts) and asks the host to reload, which
 *    reads the tree with the new pull as its lowest layer.
 * Every refusal throws an AgentError with its code; nothing is applied then.
 */
import { dirname, join } from 'node:path';
import { createHash } from 'node:crypto';
import { sink } from '../../log.js';
import { AgentError, errorMessage } from '../../errors.js';
import type { ReconcilerStatus } from '../../core/control.js';
import { SettingsReader } from '../../settings/includes.js';
import { loadSettingsFile } from '../../settings/load.js';
import { describeProblem } from '../../settings/problem.js';
import type { Snapshot } from '../../settings/snapshot.js';
import { fetchSource, revisionOf } from './fetch-source.js';
import { HISTORY_SIZE, readCachedPull, writeCachedPull, type CachedPull } from './source-cache.js';
import { sourceId, type SourceConfig } from './source-config.js';
import { trustId } from './trust.js';

const log = sink.logger('agent:settings-source');

export interface SourceHost {
  settings(): Snapshot;
  /** Apply the new cache (the agent's reconciler; the CLI only reads it again). */
  reload(reason: string): Promise<Pick<ReconcilerStatus, 'lastResult'>>;
}

export type PullOutcome = { changed: false } | { changed: true; revision: string; at: string };

/** Pull `cfg` into the cache `file` and apply it; `inForce` is the revision the settings hold now (null: none). */
export async function pullAndApply(
  host: SourceHost,
  cfg: SourceConfig,
  file: string,
  inForce: string | null,
  reason: string,
): Promise<PullOutcome> {
  const cached = readCachedPull(file);
  const same = cached?.url === sourceId(cfg) ? cached : undefined;
  const trust = trustId(cfg);
  // A cached pull not verified against these keys is no basis for "unchanged".
  const basis = same && (trust === '' || same.verifiedWith === trust) ? same : undefined;
  const repoDir = join(dirname(file), 'repo.git');
  const got = await fetchSource(cfg, basis, repoDir).catch((err: unknown) => {
    if (err instanceof AgentError) throw err;
    throw new AgentError('AGENT_ERR_SOURCE_PULL', [cfg.url, errorMessage(err)]);
  });
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
  const sha256 = createHash('sha256').update(got.body).digest('hex');
  const revision = revisionOf(got);
  if (cfg.sha256 !== '' && sha256 !== cfg.sha256)
    throw new AgentError('AGENT_ERR_SOURCE_INVALID', [
      cfg.url,
      revision,
      `its SHA-256 is ${sha256}, not the pinned ${cfg.sha256}`,
    ]);
  if (basis && trust !== '' && !cfg.allowRollback) await refuseRollback(cfg, basis, { revision, sha256 }, repoDir);
  const meta: CachedPull = {
    url: sourceId(cfg),
    revision,
    // Kept for the next conditional request only when RFC 9110 calls them strong (fetch-settings.ts).
    etag: got.validators?.etag,
    lastModified: got.validators?.lastModified,
    sha256,
    pulledAt: new Date().toISOString(),
    ...(trust === '' ? {} : { verifiedWith: trust, signedBy: got.signedBy, signature: got.signature }),
    history: historyAfter(same, sha256),
  };
  if (same?.sha256 === sha256 && inForce !== null) {
    // The same text under a new ETag (another server of a pool), or verified again: remember it, apply nothing.
    writeCachedPull(file, got.body, meta);
    return { changed: false };
  }
  await validate(host, file, got.body, cfg.url, revision);
  writeCachedPull(file, got.body, meta);
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

/** Throw AGENT_ERR_SOURCE_INVALID unless the tree, with `body` as the pulled layer, loads. */
async function validate(host: SourceHost, file: string, body: Buffer, url: string, revision: string): Promise<void> {
  const reader = new SettingsReader();
  await reader.source(file, body);
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
  next: { revision: string; sha256: string },
  repoDir: string,
): Promise<void> {
  if (next.sha256 === inForce.sha256) return;
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

/** The hashes a cache remembers after `next` replaces `same`'s text (none may come back). */
function historyAfter(same: CachedPull | undefined, next: string): string[] {
  const before = same?.history ?? [];
  if (!same || same.sha256 === next) return before;
  return [...before.filter((h) => h !== next && h !== same.sha256), same.sha256].slice(-HISTORY_SIZE);
}
