/**
 * `[/settings/source]` as the puller reads it: the section's values with
 * their defaults and units (seconds to milliseconds), where the cached
 * pull of a settings file lives, and the cache folder made before the
 * settings watcher starts.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseIni } from '../ini/read-ini.js';
import { sourceCacheFile, SOURCE_SECTION } from '../model/source-layer.js';
import type { Snapshot } from '../model/snapshot.js';
import { valueText } from '../model/value-text.js';

export interface SourceConfig {
  url: string;
  /** With a path, url is a git repository (fetch-git.ts). */
  path: string;
  ref: string;
  /** An ssh allowed-signers file: signatures are required (verify-git.ts, verify-detached.ts). */
  allowedSigners: string;
  /** An OpenPGP keyring file (git sources): signatures are required. */
  gpgKeyring: string;
  /** Where an https file's detached signature is (empty: url + `.sig`). */
  signatureUrl: string;
  intervalMs: number;
  timeoutMs: number;
  maxBytes: number;
  maxBackoffMs: number;
  ca: string;
  insecure: boolean;
  sha256: string;
  /** Apply a signed revision older than the one in force (apply-pull.ts refuses it otherwise). */
  allowRollback: boolean;
}

/** What the cache of a pull holds, by name: a changed url, ref or path is never answered from the old cache. */
export function sourceId(cfg: Pick<SourceConfig, 'url' | 'path' | 'ref'>): string {
  return cfg.path === '' ? cfg.url : `${cfg.url} ${cfg.ref}:${cfg.path}`;
}

export function sourceConfig(s: Snapshot): SourceConfig {
  const v = s.sections[SOURCE_SECTION] ?? {};
  const num = (key: string, fallback: number): number => (typeof v[key] === 'number' ? v[key] : fallback);
  return {
    url: valueText(v.url),
    path: valueText(v.path),
    ref: valueText(v.ref) || 'HEAD',
    allowedSigners: valueText(v['allowed signers']),
    gpgKeyring: valueText(v['gpg keyring']),
    signatureUrl: valueText(v['signature url']),
    intervalMs: num('interval', 300) * 1000,
    timeoutMs: num('timeout', 30) * 1000,
    maxBytes: num('max size', 4 * 1024 * 1024),
    maxBackoffMs: num('max backoff', 3600) * 1000,
    ca: valueText(v.ca),
    insecure: v.insecure === true,
    sha256: valueText(v.sha256).toLowerCase(),
    allowRollback: v['allow rollback'] === true,
  };
}

/** Where the cached pull of a settings file lives (its own [/paths] state: settings/model/source-layer.ts). */
export function cacheFileOf(main: string): string {
  return sourceCacheFile(main, parseIni(readFileSync(main, 'utf8'), main));
}

/**
 * Make the cache's folders (0700; the remote includes' too) before the
 * settings watcher starts, so the watcher can watch the cache files from
 * the first pull on. Never throws:
 * a folder that cannot be made is the first pull's error to report.
 */
export function prepareSourceFolder(settings: Snapshot): void {
  const folders = (settings.remoteIncludes ?? []).map((i) => dirname(i.cache));
  try {
    if (sourceConfig(settings).url !== '') folders.push(dirname(cacheFileOf(settings.file)));
    for (const folder of folders) mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch {
    // reported by the pull that needs it
  }
}

/** Signatures are required: `allowed signers` or `gpg keyring` is set (trust.ts, verify-cache.ts). */
export function signaturesRequired(cfg: Pick<SourceConfig, 'allowedSigners' | 'gpgKeyring'>): boolean {
  return cfg.allowedSigners !== '' || cfg.gpgKeyring !== '';
}
