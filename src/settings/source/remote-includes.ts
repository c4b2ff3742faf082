/**
 * `[/includes]` naming remote files (`https://…`): each is pulled with the
 * source's guarded puller and settings (timeout, max size, ca, insecure,
 * content type, conditional on its own ETag; with `allowed signers`, its
 * detached signature at URL + `.sig`), validated with the whole tree and
 * kept in the state folder beside the source's pull (apply-pull.ts,
 * settings/model/source-layer.ts). They are refreshed at each poll of the source
 * (settings-source.ts), after the source itself; with no source `url`,
 * the poll runs for them alone on `[/settings/source] interval`. A remote
 * include that fails keeps its last good pull in force; the first failure
 * of a run on a cached one says so (AGENT_WARN_SOURCE_CACHED).
 */
import { sink } from '../../log.js';
import { AgentError, errorMessage, formatMessage } from '../../errors.js';
import type { IncludeStatus, SourceStatus } from './source-status.js';
import type { SourceHost } from './apply-pull.js';
import { readCachedPull } from './source-cache.js';
import type { SourceConfig } from './source-config.js';
import { isoTime } from '../../iso-time.js';

const log = sink.logger('agent:settings-source');

export class RemoteIncludes {
  private readonly state = new Map<string, IncludeStatus>();

  constructor(private readonly host: SourceHost) {}

  /** The remote includes of the settings in force, each with its cache file. */
  list(): readonly { url: string; cache: string }[] {
    return this.host.settings().remoteIncludes ?? [];
  }

  /** True when a remote include has nothing cached (the first poll is then at once). */
  anyUncached(): boolean {
    return this.list().some((i) => readCachedPull(i.cache) === undefined);
  }

  /** At start: say which remote includes start on their cached pull. */
  announceCached(): void {
    for (const { url, cache } of this.list()) {
      const cached = readCachedPull(cache);
      if (cached)
        log.info(
          `remote include ${url}: starting on the cached pull, revision ${cached.revision} of ${cached.pulledAt}`,
        );
    }
  }

  status(): IncludeStatus[] {
    return this.list().map((i) => ({ ...this.entry(i.url, i.cache) }));
  }

  /** Pull every remote include; resolves with each failure (each logged with its code). */
  async pullAll(cfg: SourceConfig, reason: string, pulls: SourceStatus['pulls']): Promise<PullFailure[]> {
    const failures: PullFailure[] = [];
    for (const { url, cache } of this.list()) {
      const st = this.entry(url, cache);
      // The source's guards and keys; its pin, signature url, ref and path are its own file's.
      const own: SourceConfig = { ...cfg, url, path: '', ref: 'HEAD', sha256: '', signatureUrl: '' };
      try {
        const { pullAndApply } = await import('./apply-pull.js');
        const got = await pullAndApply(this.host, own, cache, st.revision, reason, false);
        st.lastSuccess = isoTime(Date.now());
        st.lastError = null;
        if (!got.changed) pulls.unchanged++;
        else {
          pulls.changed++;
          st.revision = got.revision;
          st.fromCache = false;
        }
      } catch (err) {
        pulls.failed++;
        st.lastError = errorMessage(err);
        failures.push({ message: st.lastError, refused: isRefusal(err) });
        log.error(err instanceof AgentError ? `${err.code}: ${st.lastError}` : st.lastError);
        const cached = st.fromCache && st.lastSuccess === null ? readCachedPull(cache) : undefined;
        if (cached && !this.warned.has(url)) {
          this.warned.add(url);
          log.warning(formatMessage('AGENT_WARN_SOURCE_CACHED', [url, why(err), cached.revision, cached.pulledAt]));
        }
      }
    }
    return failures;
  }

  private readonly warned = new Set<string>();

  private entry(url: string, cache: string): IncludeStatus {
    let st = this.state.get(url);
    if (!st) {
      const cached = readCachedPull(cache);
      st = {
        url,
        revision: cached?.revision ?? null,
        fromCache: cached !== undefined,
        lastSuccess: null,
        lastError: null,
      };
      this.state.set(url, st);
    }
    return st;
  }
}

/** Why a pull failed, in the words of AGENT_WARN_SOURCE_CACHED. */
export function why(err: unknown): string {
  return err instanceof AgentError && err.code === 'AGENT_ERR_SOURCE_PULL'
    ? err.message.replace(/^.*? failed: /, '').replace(/; keeping the settings in force$/, '')
    : 'the pull was refused';
}

/** A failed pull: its message, and whether the server answered with something refused (no reason to back off). */
export interface PullFailure {
  message: string;
  refused: boolean;
}

/**
 * The server answered, and what it served was refused for its content (invalid settings, a section a
 * pulled file may not hold, a bad signature, a rollback): the fix is a push away, so the next poll comes
 * at the normal interval. Anything else (unreachable, an HTTP error, a timeout) backs off.
 */
export function isRefusal(err: unknown): boolean {
  return (
    err instanceof AgentError &&
    (err.code === 'AGENT_ERR_SOURCE_INVALID' ||
      err.code === 'AGENT_ERR_SOURCE_SIGNATURE' ||
      err.code === 'AGENT_ERR_SOURCE_ROLLBACK' ||
      err.code === 'AGENT_ERR_SOURCE_SECTION')
  );
}
