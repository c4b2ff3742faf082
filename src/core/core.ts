/**
 * The core: registries of queries, exec commands and channels, the log
 * bridge and settings lookups. Queries, exec commands, submissions, log
 * entries and settings lookups cross the protobuf boundary: handlers take and
 * return encoded plugin messages (proto/plugin.proto). The helpers
 * `registerSimpleQuery` and `query` wrap the encoding for module code.
 */
import type { QueryResult } from './result.js';
import type { Channel } from './work-counters.js';
import type { AuthRateLimiter } from './login-limit.js';

/**
 * Encoded QueryRequestMessage in, encoded QueryResponseMessage out. The
 * optional signal (in-process only; it does not cross the wire) tells the
 * handler that the caller gave up.
 */
export type RawQueryHandler = (request: Uint8Array, call?: CallOptions) => Promise<Uint8Array>;

export type CommandKind = 'query' | 'exec';
/**
 * What a caller may run: undefined for an allowed name, else the message of
 * the refusal. The protocol servers pass one per request
 * (src/protocols/command-guard.ts); the core checks it before every
 * query and exec command, under every name the command goes by (as
 * written, as registered, the query an alias or a legacy name runs), and
 * hands it on to handlers, so queries that run other queries (check_negate,
 * check_multi, check_timeout, aliases) are checked too.
 */
export type CommandFilter = (kind: CommandKind, name: string) => string | undefined;

/** In-process options of a call (they do not cross the wire). */
export interface CallOptions {
  /** The caller gave up. */
  signal?: AbortSignal;
  /** The caller's allow-list; absent means everything (local callers, the web API with its privileges). */
  allow?: CommandFilter;
  /**
   * The listener the request came in on: each of its queries is counted and timed for the
   * metrics (core/work-counters.ts). Absent for local callers and for queries a query runs.
   */
  channel?: Channel;
}
/** Encoded ExecuteRequestMessage in, encoded ExecuteResponseMessage out. */
export type RawExecHandler = (request: Uint8Array) => Promise<Uint8Array>;
/** Encoded SubmitResponseMessage in (passive results submitted on a channel). */
export type RawChannelHandler = (message: Uint8Array) => Promise<void>;

export interface QueryInfo {
  name: string;
  /** Owning module. */
  module: string;
  title: string;
  description: string;
  /** For a query alias ([/settings/external scripts/alias]): the query it runs. */
  aliasOf?: string;
  /**
   * For another name of a check (NSClient++'s legacy `checkProcState`): the
   * check it runs (`check_process`). The allow-lists see this name too.
   */
  runs?: string;
}

/** Context passed to simple query functions. */
export interface QueryCall {
  /** Aborted when the owning module stops or the caller gives up. */
  signal: AbortSignal;
  /** The caller's allow-list, to pass on when this query runs other queries. */
  allow?: CommandFilter;
}

export type SimpleQuery = (
  args: string[],
  call: QueryCall,
) => Promise<Omit<QueryResult, 'command'> & { command?: string }>;
export type SimpleExec = (
  args: string[],
  call: QueryCall,
) => Promise<{ result: QueryResult['result']; message: string }>;

export interface Core {
  /** Register a query; returns a function that unregisters it. Names are case-insensitive. */
  registerQuery(info: QueryInfo, handler: RawQueryHandler): () => void;
  /** Register a query from a function of its arguments; the core does the protobuf work. */
  registerSimpleQuery(info: QueryInfo, fn: SimpleQuery): () => void;
  /** Run a query by name through the protobuf boundary. Unknown names answer UNKNOWN naming them. */
  query(command: string, args?: readonly string[], options?: CallOptions): Promise<QueryResult>;
  /** Run an encoded QueryRequestMessage (every payload) and return the encoded QueryResponseMessage. */
  queryRaw(request: Uint8Array, options?: CallOptions): Promise<Uint8Array>;
  listQueries(): QueryInfo[];
  getQuery(name: string): QueryInfo | undefined;

  registerExec(info: QueryInfo, handler: RawExecHandler): () => void;
  registerSimpleExec(info: QueryInfo, fn: SimpleExec): () => void;
  exec(
    command: string,
    args?: readonly string[],
  ): Promise<{ command: string; result: QueryResult['result']; message: string }>;
  execRaw(request: Uint8Array, options?: Pick<CallOptions, 'allow'>): Promise<Uint8Array>;
  listExecs(): QueryInfo[];

  /** Listen on a channel; returns an unsubscribe function. */
  subscribe(channel: string, module: string, handler: RawChannelHandler): () => void;
  /** Submit passive results on a channel (encoded as SubmitResponseMessage). Returns how many listeners took it. */
  submit(channel: string, results: readonly QueryResult[], sender?: string): Promise<number>;
  submitRaw(channel: string, message: Uint8Array): Promise<number>;
  listChannels(): { name: string; modules: string[] }[];

  /**
   * The one failed-login limit of the agent (login-limit.ts): every password
   * check of every module (web, check_nt) takes its slot here, so failures
   * from one address count on all of them. The same object on every
   * `forModule` core.
   */
  readonly logins: AuthRateLimiter;

  /** Deliver an encoded LogEntry to the agent log. */
  logRaw(entry: Uint8Array): void;
  /**
   * Answer an encoded QuerySettingsRequestMessage from the resolved settings
   * and the schemas. On the core a module receives (`forModule`), only the
   * module's own sections answer; every other path answers as unknown.
   */
  settingsRaw(request: Uint8Array): Uint8Array;
  /**
   * The same core, with settings lookups confined to `sections` (a module's
   * sections, settings/model/module-table.ts, and the objects under them). The
   * module runner hands each module its own.
   */
  forModule(sections: readonly string[]): Core;
  /** Where the settings stand in the running agent (check_settings), undefined in a one-shot command. */
  settingsHealth(): SettingsHealth | undefined;
}

/**
 * Where the settings stand (check_settings): the reconciler's last result and problems, the source's
 * status; the parts of control.ts's ReconcilerStatus and SourceStatus it needs (core.ts may not import
 * the control interface: .dependency-cruiser.cjs).
 */
export interface SettingsHealth {
  lastResult: 'ok' | 'invalid' | 'partial' | 'none';
  problems: readonly { message: string }[];
  /** sha256 of the settings in force. */
  appliedHash: string;
  source?:
    | {
        revision: string | null;
        lastSuccess: string | null;
        lastChange: string | null;
        lastError: string | null;
        refused: boolean;
        failuresInARow: number;
      }
    | undefined;
}
