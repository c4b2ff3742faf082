/**
 * CheckLogFile as the settings layer knows it, without loading its code: npm run gen
 * collects every module's descriptor into src/settings/generated/module-rows.ts.
 */
import type { ModuleRow } from '../../settings/model/module-row.js';

export const descriptor = {
  name: 'CheckLogFile',
  startRank: 40,
  title: 'Log file checks',
  description: 'check_logfile: new lines of log files since the last call.',
  sections: ['/settings/logfile'],
  queries: ['check_logfile', 'checklogfile'],
} as const satisfies ModuleRow;
