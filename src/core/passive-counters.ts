/**
 * Counters of passive checks, process-wide, that GET /api/v1/metrics shows
 * (web/metrics.ts): the Scheduler's runs, skipped runs (due while the
 * previous one still ran), submitted results and results nobody listened
 * to; and per channel module and target, the results sent, dropped (queue
 * full) and refused for good, with the results queued now. Totals only
 * grow while the process runs (a module restart keeps them). Label values
 * are module names and the targets of the settings.
 */

export type ScheduleCount = 'runs' | 'skipped' | 'submitted' | 'unsent';

const schedule: Record<ScheduleCount, number> = { runs: 0, skipped: 0, submitted: 0, unsent: 0 };
let scheduled = 0;

export type QueueCount = 'sent' | 'dropped' | 'rejected';

interface QueueRow {
  module: string;
  target: string;
  sent: number;
  dropped: number;
  rejected: number;
  /** Results queued now; undefined once the queue is gone. */
  queued?: () => number;
}

const queues = new Map<string, QueueRow>();

export function countSchedule(kind: ScheduleCount, n = 1): void {
  schedule[kind] += n;
}

/** How many schedules the Scheduler runs now (0 when it stops). */
export function setScheduled(n: number): void {
  scheduled = n;
}

/** Adds to a queue's totals. */
export function countQueue(module: string, target: string, kind: QueueCount, n = 1): void {
  rowOf(module, target)[kind] += n;
}

/** Makes a queue's length readable; returns the function that forgets it (the queue closed). */
export function watchQueue(module: string, target: string, queued: () => number): () => void {
  const row = rowOf(module, target);
  row.queued = queued;
  return () => {
    if (row.queued === queued) delete row.queued;
  };
}

export function passiveCounts(): {
  schedule: Readonly<Record<ScheduleCount, number>>;
  scheduled: number;
  queues: readonly Readonly<QueueRow>[];
} {
  return { schedule, scheduled, queues: [...queues.values()] };
}

function rowOf(module: string, target: string): QueueRow {
  const key = `${module}\u0000${target.toLowerCase()}`;
  let row = queues.get(key);
  if (!row) queues.set(key, (row = { module, target, sent: 0, dropped: 0, rejected: 0 }));
  return row;
}
