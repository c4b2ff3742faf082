/**
 * IcingaClient as the settings layer knows it, without loading its code: npm run gen
 * collects every module's descriptor into src/settings/generated/module-rows.ts.
 */
import type { ModuleRow } from '../../settings/model/module-row.js';

export const descriptor = {
  name: 'IcingaClient',
  startRank: 210,
  title: 'Icinga 2 client',
  description:
    "Posts passive results submitted on its channel to Icinga 2's process-check-result API over verified TLS.",
  sections: ['/settings/icinga/client', '/settings/icinga/client/targets', '/paths'],
  queries: ['icinga_queue'],
} as const satisfies ModuleRow;
