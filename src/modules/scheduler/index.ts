/**
 * Scheduler: runs the queries of [/settings/scheduler/schedules] at their
 * interval (schedules.ts: grid, jitter, overlap skip, hot edits) and
 * submits each result whose status `report` lists on the schedule's
 * `channel`, under the schedule's alias, with `target` as the
 * submission's recipient and `source` as its sender (NSClient++'s
 * make_submit_from_query). Channel `drop` runs the query and discards the
 * result. A submission nobody listens to (the channel's module is not
 * loaded) is counted as unsent and logged once per schedule.
 *
 * `apply(next)` adds new schedules, removes deleted ones and updates the
 * others in place. The query `scheduler_list` answers the table (last and
 * next run, counters) as JSON: the API's /api/v1/schedules reads it.
 */
import type { AgentModule, ModuleContext } from '../module.js';
import type { Logger } from '../../log.js';
import type { SettingsOf } from '../../settings/model/module-table.js';
import { encode, header, proto, resultToResponse } from '../../core/plugin/codec.js';
import { STATUS_NAMES } from '../../core/result.js';
import { errorMessage } from '../../errors.js';
import { definitionOf, ScheduleTable, type ScheduleState } from './schedules.js';
import { countSchedule, setScheduled } from '../../core/passive-counters.js';
import { isoTime } from '../../iso-time.js';

type Settings = SettingsOf<'Scheduler'>;

/** How long after its start the Scheduler skips (rather than sends as UNKNOWN) a run whose query is not registered yet. */
const STARTING_MS = 30_000;

export const agentModule: AgentModule<Settings> = {
  name: 'Scheduler',
  async start(ctx) {
    const table = new ScheduleTable(scheduleRunner(ctx), ctx.settings.sections['/settings/scheduler'].threads);
    /** Schedules that cannot run, with why. */
    const invalid = new Map<string, string>();
    syncTable(table, invalid, ctx.settings, ctx.log);
    const unregister = ctx.core.registerSimpleQuery(
      {
        name: 'scheduler_list',
        module: 'Scheduler',
        title: 'Schedules',
        description: 'The schedules with their last and next run and counters, as a JSON list in the message.',
      },
      async () => ({ result: 0, message: JSON.stringify(listJson(table.list(), invalid)), perf: [] }),
    );
    ctx.log.info(`${table.names().length} schedule(s)`);
    return {
      async apply(next) {
        syncTable(table, invalid, next, ctx.log);
        return true;
      },
      async stop() {
        unregister();
        table.clear();
        setScheduled(0);
      },
    };
  },
};

/** Runs a schedule's query and submits its result (module docs above), for the module started with `ctx`. */
function scheduleRunner(ctx: ModuleContext<Settings>): (state: ScheduleState, signal: AbortSignal) => Promise<void> {
  /** When the Scheduler started (monotonic): the other modules may still be starting for a while after. */
  const startedAt = performance.now();
  const warnedUnsent = new Set<string>();
  return async (state, signal) => {
    const d = state.def;
    try {
      // A query no module has registered yet, just after start: its module may still be starting (modules
      // start side by side). This run is not sent as an UNKNOWN of our own making; the next one is.
      if (
        performance.now() - startedAt < STARTING_MS &&
        !ctx.core.listQueries().some((q) => q.name.toLowerCase() === d.command.toLowerCase())
      ) {
        ctx.log.debug(
          `schedule ${d.name}: ${d.command} is not registered yet (modules still starting); this run is skipped`,
        );
        return;
      }
      const result = await ctx.core.query(d.command, d.args, { signal });
      state.lastStatus = result.result;
      state.lastMessage = result.message;
      if (signal.aborted || d.channel.toLowerCase() === 'drop' || !d.report.has(result.result)) return;
      const message = encode('SubmitResponseMessage', {
        header: header(proto().Header.Type.QUERY_RESPONSE, { sender: d.source, recipient: d.target }),
        payload: [resultToResponse({ ...result, command: d.alias })],
      });
      const taken = await ctx.core.submitRaw(d.channel, message);
      countSchedule(taken > 0 ? 'submitted' : 'unsent');
      if (taken > 0) {
        state.submitted++;
        warnedUnsent.delete(d.name);
      } else if (!warnedUnsent.has(d.name)) {
        warnedUnsent.add(d.name);
        ctx.log.warning(
          `schedule ${d.name}: nothing listens on channel ${d.channel} (is its module loaded?); results are not sent`,
        );
      }
    } catch (err) {
      state.lastStatus = 3;
      state.lastMessage = errorMessage(err);
      ctx.log.error(`schedule ${d.name}: ${errorMessage(err)}`);
    }
  };
}

/** Makes `table` follow `settings`: new schedules start, removed ones stop, the others update; `invalid` gets those that cannot run. */
function syncTable(table: ScheduleTable, invalid: Map<string, string>, settings: Settings, log: Logger): void {
  table.setThreads(settings.sections['/settings/scheduler'].threads);
  const wanted = new Set<string>();
  invalid.clear();
  for (const o of settings.schedules.values()) {
    if (o.isTemplate) continue;
    const def = definitionOf(o.name, o.values);
    if ('problem' in def) {
      invalid.set(o.name, def.problem);
      log.error(`schedule ${o.name} ${def.problem}; it does not run`);
      continue;
    }
    wanted.add(o.name);
    table.update(def);
  }
  for (const name of table.names()) if (!wanted.has(name)) table.remove(name);
  setScheduled(table.names().length);
}

function listJson(states: readonly ScheduleState[], invalid: ReadonlyMap<string, string>): unknown[] {
  const iso = (t: number | undefined): string | null => (t === undefined ? null : isoTime(t));
  const rows: unknown[] = states.map((s) => ({
    name: s.def.name,
    command: [s.def.command, ...s.def.args].join(' '),
    alias: s.def.alias,
    interval_s: s.def.intervalMs / 1000,
    channel: s.def.channel,
    target: s.def.target,
    report: [...s.def.report].map((r) => STATUS_NAMES[r as 0 | 1 | 2 | 3]),
    last_run: iso(s.lastStart),
    last_duration_ms:
      s.lastStart !== undefined && s.lastEnd !== undefined && s.lastEnd >= s.lastStart ? s.lastEnd - s.lastStart : null,
    last_status: s.lastStatus === undefined ? null : STATUS_NAMES[s.lastStatus as 0 | 1 | 2 | 3],
    last_message: s.lastMessage ?? null,
    next_run: iso(s.nextRun),
    running: s.running,
    runs: s.runs,
    skipped: s.skipped,
    submitted: s.submitted,
  }));
  for (const [name, problem] of invalid) rows.push({ name, problem });
  return rows.sort((a, b) => (a as { name: string }).name.localeCompare((b as { name: string }).name));
}
