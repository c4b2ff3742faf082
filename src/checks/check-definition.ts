/**
 * What a check is, as the engine (engine.ts) runs it: its name, variables,
 * options, defaults, collector and perf data. Types only, in a file of
 * their own so that the engine's helpers (engine-help.ts,
 * perf-thresholds.ts) can name them without importing the engine back.
 */
import type { CheckArguments, OptionDef } from './arguments.js';
import type { VarDef, Values } from './expression/evaluate.js';
import type { ListCap } from './list-cap.js';

export type EmptyState = 'ok' | 'warning' | 'critical' | 'unknown' | 'ignored';

export interface CheckDefaults {
  filter?: string;
  warning?: string;
  critical?: string;
  topSyntax: string;
  okSyntax?: string;
  detailSyntax: string;
  emptySyntax: string;
  emptyState: EmptyState;
  /** Text between items when list-separator is not given (', ' if absent). */
  separator?: string;
  /** At most this many items and bytes in each list of the message; the rest is said as `… N more`. */
  listCap?: ListCap;
}

/** One metric of an item (or of the summary): `key` names the value shown. */
export interface PerfSpec {
  object: string;
  key: string;
  alias: string;
  minimum?: number;
  maximum?: number;
}

export interface CollectCall {
  signal: AbortSignal;
  /** Seconds since the epoch when the check started. */
  now: number;
  /**
   * The check's filter (true when there is none). A collector that streams
   * many items (log lines) applies it while reading, answers only what
   * passes, and reports how many it saw with `seen(n)` (the summary's
   * `total`), so memory stays bounded. Set by the engine; absent when a
   * test calls collect directly.
   */
  accepts?(item: Values): boolean;
  seen?(total: number): void;
}

export interface CheckDefinition {
  name: string;
  title: string;
  description: string;
  /** The named values of each item. */
  vars: Readonly<Record<string, VarDef>>;
  /** Arguments of this check on top of the common ones. */
  options?: Readonly<Record<string, OptionDef>>;
  defaults: CheckDefaults;
  /**
   * Defaults that depend on the arguments (check_service drops its filter
   * when services are named); merged over `defaults`. Help shows `defaults`.
   */
  defaultsFor?(args: CheckArguments): Partial<CheckDefaults>;
  /** Gather the items; a throw answers UNKNOWN with its message. */
  collect(args: CheckArguments, call: CollectCall): Promise<Values[]>;
  /** Metrics of one item that passed the filter. */
  perf?(item: Values): PerfSpec[];
  /** Metrics of the whole result (keys are summary names such as `count`). */
  summaryPerf?: readonly PerfSpec[];
}
