/**
 * `config-agent settings plan --source`: the settings as they are (the local
 * files with the cached pull) and as the next pull would make them (the
 * source fetched now, unconditionally, in the cached pull's place). The
 * fetch goes to a temp repository for a git source, so the agent's own
 * cache is left alone; nothing is written to the state folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentError, errorMessage, formatMessage } from '../errors.js';
import { SettingsReader } from '../settings/store/includes.js';
import { type LoadResult } from '../settings/model/load.js';
import { loadSettingsFile } from '../settings/store/load-file.js';
import { cacheFileOf, sourceConfig } from '../settings/source/source-config.js';
import { fetchSource, revisionOf } from '../settings/source/fetch-source.js';
import { pullBundle, seedReader } from '../settings/source/pulled-bundle.js';
import { readCachedPull } from '../settings/source/source-cache.js';

export type SourcePlanInput =
  { ok: true; now: LoadResult; next: LoadResult; line: string } | { ok: false; code: 1 | 2; message: string };

export async function sourcePlanInput(file: string): Promise<SourcePlanInput> {
  const now = await loadSettingsFile(file);
  if (!now.ok) return { ok: true, now, next: now, line: '' };
  const cfg = sourceConfig(now.snapshot);
  if (cfg.url === '')
    return { ok: false, code: 2, message: `${formatMessage('AGENT_ERR_SOURCE_NONE', [])} in ${file}` };
  const repo = mkdtempSync(join(tmpdir(), 'agent-plan-source-'));
  try {
    const repoDir = join(repo, 'repo.git');
    const got = await fetchSource(cfg, undefined, repoDir);
    if (!got.changed) return { ok: false, code: 1, message: `${cfg.url}: no body to compare` };
    const cache = cacheFileOf(now.snapshot.file);
    const reader = new SettingsReader();
    const revision = revisionOf(got);
    // What the file includes, fetched as the agent's pull would (unconditionally: no cache is given).
    const bundle = await pullBundle(cfg, got.body, revision, { repoDir, cacheFile: cache, cached: undefined });
    await seedReader(reader, cache, got.body, bundle);
    const next = await loadSettingsFile(file, { reader });
    const inForce = readCachedPull(cache)?.revision ?? 'nothing pulled yet';
    return { ok: true, now, next, line: `source ${cfg.url}: revision ${revision} (in the settings now: ${inForce})` };
  } catch (err) {
    // A refused signature says so under its own code; any other failure is a failed pull.
    const message =
      err instanceof AgentError ? err.message : formatMessage('AGENT_ERR_SOURCE_PULL', [cfg.url, errorMessage(err)]);
    return { ok: false, code: 1, message };
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}
