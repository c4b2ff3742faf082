/**
 * Scheduler as the settings layer knows it, without loading its code: npm run gen
 * collects every module's descriptor into src/settings/generated/module-rows.ts.
 */
import type { ModuleRow } from '../../settings/model/module-row.js';

export const descriptor = {
  name: 'Scheduler',
  startRank: 300,
  title: 'Scheduler',
  description: 'Runs queries at intervals and submits their results on channels (passive checks).',
  sections: ['/settings/scheduler', '/settings/scheduler/schedules'],
  queries: ['scheduler_list'],
  background: true,
} as const satisfies ModuleRow;
