/**
 * One pull of the configured source, whichever kind it is: a file over
 * http(s) (fetch-settings.ts: conditional on the cached ETag and
 * Last-Modified) or a file in a git repository (fetch-git.ts: conditional
 * on the cached commit). `sourceId` names what the cache holds, so a
 * changed url, ref or path is never answered from the old cache.
 */
import { readFileSync } from 'node:fs';
import { errorMessage } from '../../errors.js';
import { fetchSettings } from './fetch-settings.js';
import { fetchGit } from './fetch-git.js';
import type { CachedPull } from './source-cache.js';
import type { SourceConfig } from './settings-source.js';

export type SourceFetch =
  | { changed: false }
  | {
      changed: true;
      body: Buffer;
      revision?: string | undefined;
      etag?: string | undefined;
      lastModified?: string | undefined;
    };

export function sourceId(cfg: Pick<SourceConfig, 'url' | 'path' | 'ref'>): string {
  return cfg.path === '' ? cfg.url : `${cfg.url} ${cfg.ref}:${cfg.path}`;
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
      allowedSigners: cfg.allowedSigners || undefined,
    });
  let ca: string | undefined;
  try {
    ca = cfg.ca === '' ? undefined : readFileSync(cfg.ca, 'utf8');
  } catch (err) {
    throw new Error(`cannot read the ca file ${cfg.ca}: ${errorMessage(err)}`, { cause: err });
  }
  return fetchSettings(cfg.url, {
    timeoutMs: cfg.timeoutMs,
    maxBytes: cfg.maxBytes,
    ca,
    insecure: cfg.insecure,
    etag: same?.etag,
    lastModified: same?.lastModified,
  });
}
