/**
 * NSCAClient as the settings layer knows it, without loading its code: npm run gen
 * collects every module's descriptor into src/settings/generated/module-rows.ts.
 */
import type { ModuleRow } from '../../settings/model/module-row.js';

export const descriptor = {
  name: 'NSCAClient',
  startRank: 200,
  title: 'NSCA client',
  description: "Sends passive results submitted on its channel to an NSCA 2.x daemon (send_nsca's wire form).",
  sections: ['/settings/NSCA/client', '/settings/NSCA/client/targets'],
  queries: ['nsca_queue'],
} as const satisfies ModuleRow;
