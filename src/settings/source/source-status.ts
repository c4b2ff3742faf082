/**
 * Where the settings source stands, as the agent reports it (status, metrics,
 * check_settings). Defined here, beside the source that fills it in
 * (settings-source.ts, remote-includes.ts), so that the source imports
 * nothing above the settings layers; core/control.ts re-exports it for the
 * web API and the CLI.
 */

/** Where pulled settings stand (settings-source.ts). */
export interface SourceStatus {
  url: string;
  /** Revision of the pulled text in the settings now (ETag, else `sha256:`…), null when none. */
  revision: string | null;
  /** The pulled text in force comes from the cache, not from a pull of this run. */
  fromCache: boolean;
  /** Last attempt, last success (200 or 304), last applied change: ISO times or null. */
  lastPull: string | null;
  lastSuccess: string | null;
  lastChange: string | null;
  /** Why the last attempt failed (null after a good one). */
  lastError: string | null;
  /** The last attempt failed because what was served is refused (invalid, unsigned, a rollback), not the server. */
  refused: boolean;
  pulls: { changed: number; unchanged: number; failed: number };
  /** Failures in a row (the backoff's count). */
  failuresInARow: number;
  nextPull: string | null;
  /** The remote files [/includes] names (remote-includes.ts), when there are any. */
  includes?: IncludeStatus[];
}

/** Where one remote include stands: its revision in force, from the cache or pulled in this run, its last success and error. */
export interface IncludeStatus {
  url: string;
  revision: string | null;
  fromCache: boolean;
  lastSuccess: string | null;
  lastError: string | null;
}
