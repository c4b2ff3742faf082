/**
 * Pulls `[/settings/source] url` and applies what it gets through the
 * reconciler, as a save of a local file is applied: this file keeps the
 * schedule and the status; one pull is apply-pull.ts. One pull at a time
 * (callers during a pull share it). A failure keeps the settings in force
 * and is logged with its code, counted and shown.
 *
 * Polling: the first pull at once when nothing is cached (an agent just
 * installed wants its settings), else at a random time within one interval
 * (10,000 agents started together do not poll together); then every
 * interval, each wait drawn between 90% and 110% of it; after failures the
 * wait doubles from the interval up to `max backoff`.
 */
import { sink } from '../../log.js';
import { AgentError, errorMessage, formatMessage } from '../../errors.js';
import { backoffDelay } from '../../retry-policy.js';
import type { SourceStatus } from '../../core/control.js';
import { sourceId } from './fetch-source.js';
import { readCachedPull } from './source-cache.js';
import { cacheFileOf, sourceConfig, type SourceConfig } from './source-config.js';
import { pullAndApply, type SourceHost } from './apply-pull.js';

const log = sink.logger('agent:settings-source');

/** What a pull fetches and checks: a change of any of it is a new source, pulled at once. */
function sourceWhat(cfg: SourceConfig): string {
  return cfg.url === '' ? '' : JSON.stringify([sourceId(cfg), cfg.allowedSigners, cfg.gpgKeyring, cfg.signatureUrl]);
}

export class SettingsSource {
  private inFlight: Promise<SourceStatus> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private url = '';
  /** What is pulled and how it is checked (sourceWhat), as of the last start or reload. */
  private what = '';
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
    const cfg = sourceConfig(this.host.settings());
    this.url = cfg.url;
    this.what = sourceWhat(cfg);
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

  /** After a reload: a new or removed source (url, ref, path or the keys it is checked against) is pulled (or dropped) at once. */
  settingsChanged(): void {
    const cfg = sourceConfig(this.host.settings());
    const what = sourceWhat(cfg);
    if (cfg.url !== '' && what === this.what) this.adoptCache();
    if (what === this.what || this.stopped) return;
    this.what = what;
    this.url = cfg.url;
    if (cfg.url === '') {
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
      log.error(err instanceof AgentError ? `${err.code}: ${this.state.lastError}` : this.state.lastError);
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
    const got = await pullAndApply(this.host, cfg, this.cacheFile(), this.state.revision, reason);
    if (!got.changed) {
      this.state.pulls.unchanged++;
      return;
    }
    this.state.pulls.changed++;
    this.state.revision = got.revision;
    this.state.fromCache = false;
    this.state.lastChange = got.at;
  }
}
