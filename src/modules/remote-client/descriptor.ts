/**
 * RemoteClient as the settings layer knows it, without loading its code: npm run gen
 * collects every module's descriptor into src/settings/generated/module-rows.ts.
 */
import type { ModuleRow } from '../../settings/model/module-row.js';

export const descriptor = {
  name: 'RemoteClient',
  startRank: 110,
  title: 'Remote-protocol client',
  description: 'NRPE client: remote_query, remote_exec, remote_submit, remote_forward.',
  sections: [
    '/settings/remote/client',
    '/settings/remote/client/handlers',
    '/settings/remote/client/targets',
    '/paths',
  ],
  queries: ['remote_query', 'remote_exec', 'remote_submit', 'remote_forward'],
} as const satisfies ModuleRow;
