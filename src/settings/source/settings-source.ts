/**
 * Pulls `[/settings/source] url`, and the remote files `[/includes]` names
 * (remote-includes.ts), and applies what it gets through the reconciler,
 * as a save of a local file is applied: this file keeps the schedule and
 * the status; one pull is apply-pull.ts. One poll at a time (callers during
 * a poll share it). A failure keeps the settings in force and is logged
 * with its code, counted and shown.
 *
 * Polling: the first poll at once when something is not cached (an agent
 * just installed wants its settings), else at a random time within one
 * interval (10,000 agents started together do not poll together); then
 * every interval, each wait drawn between 90% and 110% of it; after polls
 * whose server failed (unreachable, an HTTP error) the wait doubles from the
 * interval up to `max backoff`; a file refused for its content (invalid, a
 * bad signature, a rollback) is polled again at the interval: the fix lands.
 *
 * The code of a pull (apply-pull.ts, the http(s) and git fetchers, the
 * signature checks) is loaded at the first pull: an agent with no source
 * and no remote include never loads it.
 */
import { sink } from '../../log.js';
import { maskSecrets } from '../../log-escape.js';
import { AgentError, errorMessage, formatMessage } from '../../errors.js';
import { backoffDelay } from '../../retry-policy.js';
import type { SourceStatus } from './source-status.js';
import { readCachedPull } from './source-cache.js';
import { cacheFileOf, sourceConfig, sourceId, type SourceConfig } from './source-config.js';
import type { SourceHost } from './apply-pull.js';
import { isRefusal, RemoteIncludes, why, type PullFailure } from './remote-includes.js';
import { isoTime } from '../../iso-time.js';

const log = sink.logger('agent:settings-source');

export class SettingsSource {
  private inFlight: Promise<SourceStatus> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private url = '';
  /** What is pulled and how it is checked (what()), as of the last start or reload. */
  private pulling = '';
  private readonly includes: RemoteIncludes;
  private readonly state: Omit<SourceStatus, 'url' | 'nextPull' | 'includes'> = {
    revision: null,
    fromCache: false,
    lastPull: null,
    lastSuccess: null,
    lastChange: null,
    lastError: null,
    refused: false,
    pulls: { changed: 0, unchanged: 0, failed: 0 },
    failuresInARow: 0,
  };
  /** The source's own pull has succeeded in this run (its first failure before that is warned about). */
  private mainOk = false;
  private next: number | null = null;

  constructor(private readonly host: SourceHost) {
    this.includes = new RemoteIncludes(host);
  }

  /** Start polling when the settings name a source or a remote include; the cached pulls are in the settings already. */
  start(): void {
    const cfg = sourceConfig(this.host.settings());
    this.url = cfg.url;
    this.pulling = this.what(cfg);
    if (this.pulling === '') return;
    const cached = cfg.url === '' ? undefined : readCachedPull(this.cacheFile());
    if (cached) {
      this.state.revision = cached.revision;
      this.state.fromCache = true;
      log.info(
        `settings source ${this.url}: starting on the cached pull, revision ${cached.revision} of ${cached.pulledAt}`,
      );
    }
    this.includes.announceCached();
    if ((cfg.url !== '' && !cached) || this.includes.anyUncached()) this.schedule(0);
    else this.schedule(Math.floor(Math.random() * cfg.intervalMs));
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** After a reload: a new or removed source (url, ref, path, keys, remote includes) is pulled (or dropped) at once. */
  settingsChanged(): void {
    const cfg = sourceConfig(this.host.settings());
    const what = this.what(cfg);
    if (cfg.url !== '' && what === this.pulling) this.adoptCache();
    if (what === this.pulling || this.stopped) return;
    this.pulling = what;
    this.url = cfg.url;
    if (what === '') {
      if (this.timer) clearTimeout(this.timer);
      this.next = null;
      return;
    }
    this.schedule(0);
  }

  /** What a poll fetches and checks ('' when nothing): a change of any of it is pulled at once. */
  private what(cfg: SourceConfig): string {
    const remote = this.includes.list().map((i) => i.url);
    if (cfg.url === '' && remote.length === 0) return '';
    const main = cfg.url === '' ? '' : sourceId(cfg);
    return JSON.stringify([main, remote, cfg.allowedSigners, cfg.gpgKeyring, cfg.signatureUrl]);
  }

  /** A cache written by another process (`config-agent settings pull`) and now applied: its revision is the one in force. */
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

  /**
   * Where the pulls stand, as it leaves the agent (API status, metrics): every URL and error in
   * masked form (maskSecrets: URL userinfo, values read with ${env:} / ${file:}).
   */
  status(): SourceStatus | undefined {
    if (this.pulling === '') return undefined;
    const secrets = this.host.settings().secretValues;
    const mask = (text: string): string => maskSecrets(text, secrets);
    const masked = <T extends { url: string; lastError: string | null }>(o: T): T => ({
      ...o,
      url: mask(o.url),
      lastError: o.lastError === null ? null : mask(o.lastError),
    });
    const includes = this.includes.status().map(masked);
    return masked({
      url: this.url,
      ...this.state,
      pulls: { ...this.state.pulls },
      nextPull: this.next === null ? null : isoTime(this.next),
      ...(includes.length > 0 ? { includes } : {}),
    });
  }

  /** Pull now (SIGHUP, the API, `config-agent settings pull`). Never rejects, except AGENT_ERR_SOURCE_NONE when nothing is to pull. */
  pull(reason: string): Promise<SourceStatus> {
    if (this.what(sourceConfig(this.host.settings())) === '')
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

  /** One poll: the source's file, then each remote include; the poll fails when any of them does. */
  private async pullOnce(reason: string): Promise<SourceStatus> {
    const cfg = sourceConfig(this.host.settings());
    this.url = cfg.url;
    this.pulling = this.what(cfg);
    this.state.lastPull = isoTime(Date.now());
    const failures: PullFailure[] = [];
    if (cfg.url !== '') {
      const failed = await this.pullMain(cfg, reason);
      if (failed !== null) failures.push(failed);
    }
    failures.push(...(await this.includes.pullAll(cfg, reason, this.state.pulls)));
    if (failures.length === 0) {
      this.state.lastSuccess = isoTime(Date.now());
      this.state.lastError = null;
      this.state.failuresInARow = 0;
    } else {
      this.state.failuresInARow++;
      this.state.lastError = failures.map((f) => f.message).join(' | ');
    }
    this.state.refused = failures.some((f) => f.refused);
    // Only a server that fails backs off; a refused file is polled again at the interval, so a pushed fix lands.
    this.serverFailuresInARow = failures.some((f) => !f.refused) ? this.serverFailuresInARow + 1 : 0;
    const base = cfg.intervalMs;
    const wait =
      this.serverFailuresInARow === 0
        ? base
        : backoffDelay(
            { firstMs: base, factor: 2, maxMs: Math.max(base, cfg.maxBackoffMs), jitter: 0 },
            this.serverFailuresInARow,
          );
    this.schedule(Math.floor(wait * (0.9 + 0.2 * Math.random())));
    return this.status() as SourceStatus;
  }

  /** Pull the source's own file; null when good, else the failure (logged, counted, warned about). */
  private async pullMain(cfg: SourceConfig, reason: string): Promise<PullFailure | null> {
    try {
      const { pullAndApply } = await import('./apply-pull.js');
      const got = await pullAndApply(this.host, cfg, this.cacheFile(), this.state.revision, reason);
      this.mainOk = true;
      if (!got.changed) {
        this.state.pulls.unchanged++;
        return null;
      }
      this.state.pulls.changed++;
      this.state.revision = got.revision;
      this.state.fromCache = false;
      this.state.lastChange = got.at;
      return null;
    } catch (err) {
      this.state.pulls.failed++;
      const message = errorMessage(err);
      log.error(err instanceof AgentError ? `${err.code}: ${message}` : message);
      // The first pull of this run failed: say what the agent runs on meanwhile.
      if (!this.mainOk && !this.warnedMain) {
        this.warnedMain = true;
        const cached = readCachedPull(this.cacheFile());
        log.warning(
          cached
            ? formatMessage('AGENT_WARN_SOURCE_CACHED', [cfg.url, why(err), cached.revision, cached.pulledAt])
            : formatMessage('AGENT_WARN_SOURCE_NO_CACHE', [cfg.url, why(err)]),
        );
      }
      return { message, refused: isRefusal(err) };
    }
  }

  private warnedMain = false;
  /** Polls in a row in which a server failed (not answered, an HTTP error): what the wait backs off on. */
  private serverFailuresInARow = 0;
}
