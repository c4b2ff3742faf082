/**
 * The schedule table of the Scheduler: one timer per schedule, on a fixed
 * grid (each next run is the previous due time plus the interval, so a
 * slow check does not drift the grid).
 *
 * - First runs: a random delay of up to `randomness` × interval (jitter),
 *   so schedules loaded together do not all run at once.
 * - A run that is due while the schedule's previous run is still running
 *   (or waiting for a free slot of `threads`) is skipped and counted.
 * - `update` takes a new definition in place: an edited interval moves the
 *   next run to the last run's start plus the new interval (now, if that
 *   has passed), so no run is skipped or doubled; any other edit keeps the
 *   timing. `remove` stops the timer and aborts a run under way.
 */
import { splitAliasCommand } from '../../formats/alias-command.js';
import { countSchedule } from '../../core/passive-counters.js';
import { parseDurationMs } from '../../formats/duration.js';

export interface ScheduleDefinition {
  name: string;
  command: string;
  args: string[];
  /** Service name the result is submitted under. */
  alias: string;
  intervalMs: number;
  randomness: number;
  channel: string;
  report: ReadonlySet<number>;
  target: string;
  source: string;
}

export interface ScheduleState {
  def: ScheduleDefinition;
  nextRun: number;
  lastStart?: number;
  lastEnd?: number;
  lastStatus?: number;
  lastMessage?: string;
  runs: number;
  skipped: number;
  submitted: number;
  running: boolean;
  timer?: NodeJS.Timeout;
  abort?: AbortController;
}

export type RunSchedule = (state: ScheduleState, signal: AbortSignal) => Promise<void>;

export class ScheduleTable {
  private readonly states = new Map<string, ScheduleState>();
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly run: RunSchedule,
    private threads: number,
  ) {}

  setThreads(n: number): void {
    this.threads = n;
    while (this.active < this.threads && this.waiting.length > 0) this.waiting.shift()!();
  }

  list(): readonly ScheduleState[] {
    return [...this.states.values()];
  }

  names(): string[] {
    return [...this.states.keys()];
  }

  add(def: ScheduleDefinition, now = Date.now()): void {
    const state: ScheduleState = {
      def,
      nextRun: now + Math.floor(Math.random() * def.randomness * def.intervalMs),
      runs: 0,
      skipped: 0,
      submitted: 0,
      running: false,
    };
    this.states.set(def.name, state);
    this.arm(state);
  }

  update(def: ScheduleDefinition, now = Date.now()): void {
    const state = this.states.get(def.name);
    if (!state) return this.add(def, now);
    const before = state.def;
    state.def = def;
    if (before.intervalMs === def.intervalMs) return;
    state.nextRun =
      state.lastStart === undefined
        ? Math.min(state.nextRun, now + def.intervalMs)
        : Math.max(now, state.lastStart + def.intervalMs);
    this.arm(state);
  }

  remove(name: string): void {
    const state = this.states.get(name);
    if (!state) return;
    clearTimeout(state.timer);
    state.abort?.abort();
    this.states.delete(name);
  }

  clear(): void {
    for (const name of this.names()) this.remove(name);
  }

  private arm(state: ScheduleState): void {
    clearTimeout(state.timer);
    state.timer = setTimeout(() => this.due(state), Math.max(0, state.nextRun - Date.now()));
    state.timer.unref();
  }

  private due(state: ScheduleState): void {
    if (this.states.get(state.def.name) !== state) return;
    // The next due time on the grid, past now (a timer that fired late does not queue the runs it missed).
    const now = Date.now();
    const interval = state.def.intervalMs;
    state.nextRun += interval * Math.max(1, Math.ceil((now - state.nextRun + 1) / interval));
    this.arm(state);
    if (state.running) {
      state.skipped++;
      countSchedule('skipped');
      return;
    }
    state.running = true;
    void this.slot().then(async () => {
      // Removed (or replaced by a restart of the table) while it waited for a slot: it does not run.
      if (this.states.get(state.def.name) !== state) {
        state.running = false;
        this.release();
        return;
      }
      const abort = new AbortController();
      state.abort = abort;
      state.lastStart = Date.now();
      try {
        await this.run(state, abort.signal);
      } finally {
        state.lastEnd = Date.now();
        state.runs++;
        countSchedule('runs');
        state.running = false;
        state.abort = undefined;
        this.release();
      }
    });
  }

  private async slot(): Promise<void> {
    if (this.active < this.threads) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
  }

  private release(): void {
    this.active--;
    if (this.active < this.threads) this.waiting.shift()?.();
  }
}

/** A schedule's resolved values as a definition, or the problem with them. */
export function definitionOf(
  name: string,
  v: Readonly<Record<string, unknown>>,
): ScheduleDefinition | { problem: string } {
  const text = (k: string): string => (typeof v[k] === 'string' ? v[k].trim() : '');
  const alias = text('alias') || name;
  let words: string[];
  try {
    words = text('command') === '' ? [alias] : splitAliasCommand(text('command'));
  } catch (err) {
    return { problem: err instanceof Error ? err.message : String(err) };
  }
  const [command, ...args] = words;
  if (command === undefined || command === '') return { problem: 'has no command' };
  const intervalMs = parseDuration(text('interval') || '5m');
  if (!(intervalMs >= 1)) return { problem: `interval ${text('interval')} is not a duration` };
  const randomness = Math.min(1, Number(text('randomness').replace('%', '') || '0') / 100);
  return {
    name,
    command,
    args,
    alias,
    intervalMs,
    randomness,
    channel: text('channel') || 'NSCA',
    report: parseReport(text('report') || 'all'),
    target: text('target'),
    source: text('source'),
  };
}

/** `300`, `30s`, `5m`, `1.5h`, `250ms`: milliseconds (formats/duration.ts, the one duration parser). */
export const parseDuration = parseDurationMs;

/** `all` or a list of ok, warning, critical, unknown: the statuses that are submitted. */
export function parseReport(text: string): ReadonlySet<number> {
  const out = new Set<number>();
  for (const w of text
    .toLowerCase()
    .split(',')
    .map((x) => x.trim())) {
    if (w === 'all') [0, 1, 2, 3].forEach((s) => out.add(s));
    else if (w === 'ok') out.add(0);
    else if (w === 'warning' || w === 'warn') out.add(1);
    else if (w === 'critical' || w === 'crit') out.add(2);
    else if (w === 'unknown') out.add(3);
  }
  return out;
}
