/**
 * RemoteServer as the settings layer knows it, without loading its code: npm run gen
 * collects every module's descriptor into src/settings/generated/module-rows.ts.
 */
import type { ModuleRow } from '../../settings/model/module-row.js';

export const descriptor = {
  name: 'RemoteServer',
  startRank: 120,
  title: 'Remote-protocol server',
  description: "NRPE server answering check_nrpe with the agent's queries.",
  sections: ['/settings/remote/server', '/paths'],
  queries: ['remote_submissions'],
  listener: '/settings/remote/server',
} as const satisfies ModuleRow;
