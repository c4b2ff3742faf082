/**
 * NSClientServer as the settings layer knows it, without loading its code: npm run gen
 * collects every module's descriptor into src/settings/generated/module-rows.ts.
 */
import type { ModuleRow } from '../../settings/model/module-row.js';

export const descriptor = {
  name: 'NSClientServer',
  startRank: 130,
  title: 'check_nt server',
  description: "Answers check_nt (the NSClient protocol) from the agent's system and disk checks.",
  sections: ['/settings/NSClient/server', '/paths'],
  queries: [],
  listener: '/settings/NSClient/server',
} as const satisfies ModuleRow;
