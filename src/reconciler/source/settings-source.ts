/**
 * Pulls `[/settings/source] url` and applies what it gets through the
 * reconciler, as a save of a local file is applied. One pull at a time
 * (callers during a pull share it). A pull:
 * 1. fetches conditionally (fetch-settings.ts): a 304 changes nothing;
 * 2. refuses a body whose SHA-256 is not the pinned `sha256`;
 * 3. loads the whole tree with the body in place of the cached pull
 *    (settings/source-layer.ts) and refuses it when anything does not
 *    validate: nothing partial, oversized or invalid reaches the cache;
 * 4. writes the cache (source-cache.ts) and asks the reconciler to reload,
 *    which reads the tree with the new pull as its lowest layer.
 * A failure keeps the settings in force and is logged, counted and shown.
 *
 * Polling: the first pull at once when nothing is cached (an agent just
 * installed wants its settings), else at a random time within one interval
 * (10,000 agents started together do not poll together); then every
 * interval, each wait drawn between 90% and 110% of it; after failures the
 * wait doubles from the interval up to `max backoff`.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createHash } from 'node:crypto';
import { sink } from '../../log.js';
import { AgentError, errorMessage, formatMessage } from '../../errors.js';
import { backoffDelay } from '../../retry-policy.js';
import type { ReconcilerStatus, SourceStatus } from '../../core/control.js';
import { parseIni } from '../../settings/read-ini.js';
import { SettingsReader } from '../../settings/includes.js';
import { loadSettingsFile } from '../../settings/load.js';
import { describeProblem } from '../../settings/problem.js';
import { sourceCacheFile, SOURCE_SECTION } from '../../settings/source-layer.js';
import type { Snapshot } from '../../settings/snapshot.js';
import { valueText } from '../../settings/value-text.js';
import { fetchSource, sourceId } from './fetch-source.js';
import { readCachedPull, writeCachedPull, type CachedPull } from './source-cache.js';

const log = sink.logger('agent:settings-source');

export interface SourceHost {
  settings(): Snapshot;
  /** Apply the new cache (the agent's reconciler; the CLI only reads it again). */
  reload(reason: string): Promise<Pick<ReconcilerStatus, 'lastResult'>>;
}

export interface SourceConfig {
  url: string;
  /** With a path, url is a git repository (fetch-git.ts). */
  path: string;
  ref: string;
  allowedSigners: string;
  intervalMs: number;
  timeoutMs: number;
  maxBytes: number;
  maxBackoffMs: number;
  ca: string;
  insecure: boolean;
  sha256: string;
}

export function sourceConfig(s: Snapshot): SourceConfig {
  const v = s.sections[SOURCE_SECTION] ?? {};
  const num = (key: string, fallback: number): number => (typeof v[key] === 'number' ? v[key] : fallback);
  return {
    url: valueText(v.url),
    path: valueText(v.path),
    ref: valueText(v.ref) || 'HEAD',
    allowedSigners: valueText(v['allowed signers']),
    intervalMs: num('interval', 300) * 1000,
    timeoutMs: num('timeout', 30) * 1000,
    maxBytes: num('max size', 4 * 1024 * 1024),
    maxBackoffMs: num('max backoff', 3600) * 1000,
    ca: valueText(v.ca),
    insecure: v.insecure === true,
    sha256: valueText(v.sha256).toLowerCase(),
  };
}

/** Where the cached pull of a settings file lives (its own [/paths] state: settings/source-layer.ts). */
export function cacheFileOf(main: string): string {
  return sourceCacheFile(main, parseIni(readFileSync(main, 'utf8'), main));
}

/**
 * Make the cache's folder (0700) before the settings watcher starts, so the
 * watcher can watch the cache file from the first pull on. Never throws:
 * a folder that cannot be made is the first pull's error to report.
 */
export function prepareSourceFolder(settings: Snapshot): void {
  if (sourceConfig(settings).url === '') return;
  try {
    mkdirSync(dirname(cacheFileOf(settings.file)), { recursive: true, mode: 0o700 });
  } catch {
    // reported by the pull that needs it
  }
}

export class SettingsSource {
  private inFlight: Promise<SourceStatus> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private url = '';
  private readonly state: Omit<SourceStatus, 'url' | 'nextPull'> = {
    revision: null,
    fromCache: false,
    lastPull: null,
    lastSuccess: null,
    lastChange: null,
    lastError: null,
    pulls: { changed: 0, unchanged: 0, failed: 0 },
    failuresInARow: 0,
  };
  private next: number | null = null;

  constructor(private readonly host: SourceHost) {}

  /** Start polling when the settings name a source; the cached pull (if any) is in the settings already. */
  start(): void {
    this.url = sourceConfig(this.host.settings()).url;
    if (this.url === '') return;
    const cached = readCachedPull(this.cacheFile());
    if (cached) {
      this.state.revision = cached.revision;
      this.state.fromCache = true;
      log.info(
        `settings source ${this.url}: starting on the cached pull, revision ${cached.revision} of ${cached.pulledAt}`,
      );
      this.schedule(Math.floor(Math.random() * sourceConfig(this.host.settings()).intervalMs));
    } else this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** After a reload: a new or removed url is pulled (or dropped) at once. */
  settingsChanged(): void {
    const url = sourceConfig(this.host.settings()).url;
    if (url !== '' && url === this.url) this.adoptCache();
    if (url === this.url || this.stopped) return;
    this.url = url;
    if (url === '') {
      if (this.timer) clearTimeout(this.timer);
      this.next = null;
      return;
    }
    this.schedule(0);
  }

  /** A cache written by another process (`agent settings pull`) and now applied: its revision is the one in force. */
  private adoptCache(): void {
    const cached = readCachedPull(this.cacheFile());
    if (
      !cached ||
      cached.revision === this.state.revision ||
      cached.url !== sourceId(sourceConfig(this.host.settings())) ||
      this.inFlight
    )
      return;
    this.state.revision = cached.revision;
    this.state.lastChange = cached.pulledAt;
    this.state.fromCache = false;
    log.info(`settings source ${this.url}: revision ${cached.revision} applied (pulled by another process)`);
  }

  status(): SourceStatus | undefined {
    if (this.url === '') return undefined;
    return {
      url: this.url,
      ...this.state,
      pulls: { ...this.state.pulls },
      nextPull: this.next === null ? null : new Date(this.next).toISOString(),
    };
  }

  /** Pull now (SIGHUP, the API, `agent settings pull`). Never rejects, except AGENT_ERR_SOURCE_NONE when no source is set. */
  pull(reason: string): Promise<SourceStatus> {
    if (sourceConfig(this.host.settings()).url === '')
      return Promise.reject(new AgentError('AGENT_ERR_SOURCE_NONE', []));
    this.inFlight ??= this.pullOnce(reason).finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.next = Date.now() + ms;
    this.timer = setTimeout(() => void this.pull('poll').catch(() => undefined), ms);
    this.timer.unref();
  }

  private cacheFile(): string {
    return cacheFileOf(this.host.settings().file);
  }

  private async pullOnce(reason: string): Promise<SourceStatus> {
    const cfg = sourceConfig(this.host.settings());
    this.url = cfg.url;
    this.state.lastPull = new Date().toISOString();
    try {
      await this.fetchAndApply(cfg, reason);
      this.state.lastSuccess = new Date().toISOString();
      this.state.lastError = null;
      this.state.failuresInARow = 0;
    } catch (err) {
      this.state.failuresInARow++;
      this.state.pulls.failed++;
      this.state.lastError = errorMessage(err);
      log.error(this.state.lastError);
      // The first pull of this run failed: say what the agent runs on meanwhile.
      if (this.state.lastSuccess === null && this.state.failuresInARow === 1) {
        const why =
          err instanceof AgentError && err.code === 'AGENT_ERR_SOURCE_PULL'
            ? this.state.lastError.replace(/^.*? failed: /, '').replace(/; keeping the settings in force$/, '')
            : 'the pull was refused';
        const cached = readCachedPull(this.cacheFile());
        log.warning(
          cached
            ? formatMessage('AGENT_WARN_SOURCE_CACHED', [cfg.url, why, cached.revision, cached.pulledAt])
            : formatMessage('AGENT_WARN_SOURCE_NO_CACHE', [cfg.url, why]),
        );
      }
    }
    const base = cfg.intervalMs;
    const wait =
      this.state.failuresInARow === 0
        ? base
        : backoffDelay(
            { firstMs: base, factor: 2, maxMs: Math.max(base, cfg.maxBackoffMs), jitter: 0 },
            this.state.failuresInARow,
          );
    this.schedule(Math.floor(wait * (0.9 + 0.2 * Math.random())));
    return this.status() as SourceStatus;
  }

  private async fetchAndApply(cfg: SourceConfig, reason: string): Promise<void> {
    const file = this.cacheFile();
    const cached = readCachedPull(file);
    const same = cached?.url === sourceId(cfg) ? cached : undefined;
    const got = await fetchSource(cfg, same, join(dirname(file), 'repo.git')).catch((err: unknown) => {
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
      this.state.pulls.unchanged++;
      log.debug(`settings source ${cfg.url}: unchanged (${reason})`);
      return;
    }
    const sha256 = createHash('sha256').update(got.body).digest('hex');
    const revision = got.revision ?? got.etag ?? `sha256:${sha256}`;
    if (cfg.sha256 !== '' && sha256 !== cfg.sha256)
      throw new AgentError('AGENT_ERR_SOURCE_INVALID', [
        cfg.url,
        revision,
        `its SHA-256 is ${sha256}, not the pinned ${cfg.sha256}`,
      ]);
    const meta: CachedPull = {
      url: sourceId(cfg),
      revision,
      etag: got.etag,
      lastModified: got.lastModified,
      sha256,
      pulledAt: new Date().toISOString(),
    };
    if (same?.sha256 === sha256 && this.state.revision !== null) {
      // The same text under a new ETag (another server of a pool): remember the validators, apply nothing.
      writeCachedPull(file, got.body, meta);
      this.state.pulls.unchanged++;
      return;
    }
    await this.validate(file, got.body, cfg.url, revision);
    writeCachedPull(file, got.body, meta);
    const status = await this.host.reload(`settings pulled from ${cfg.url}, revision ${revision} (${reason})`);
    if (status.lastResult === 'invalid')
      throw new AgentError('AGENT_ERR_SOURCE_INVALID', [
        cfg.url,
        revision,
        'the reload after the pull was refused (see the settings problems)',
      ]);
    this.state.pulls.changed++;
    this.state.revision = revision;
    this.state.fromCache = false;
    this.state.lastChange = meta.pulledAt;
    log.info(`settings source ${cfg.url}: applied revision ${revision}`);
  }

  /** Throw AGENT_ERR_SOURCE_INVALID unless the tree, with `body` as the pulled layer, loads. */
  private async validate(file: string, body: Buffer, url: string, revision: string): Promise<void> {
    const reader = new SettingsReader();
    await reader.source(file, body);
    const loaded = await loadSettingsFile(this.host.settings().file, { reader });
    if (loaded.ok) return;
    const shown = loaded.problems.slice(0, 5).map((p) => describeProblem(p));
    const more = loaded.problems.length > 5 ? `; and ${loaded.problems.length - 5} more` : '';
    throw new AgentError('AGENT_ERR_SOURCE_INVALID', [
      url,
      revision,
      `${loaded.problems.length} problem(s): ${shown.join('; ')}${more}`,
    ]);
  }
}
