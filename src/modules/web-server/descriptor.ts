/**
 * WEBServer as the settings layer knows it, without loading its code: npm run gen
 * collects every module's descriptor into src/settings/generated/module-rows.ts.
 */
import type { ModuleRow } from '../../settings/model/module-row.js';

export const descriptor = {
  name: 'WEBServer',
  startRank: 100,
  title: 'Web server',
  description: 'JSON API and web UI over HTTP(S).',
  sections: ['/settings/WEB/server', '/settings/web/users', '/settings/web/roles', '/paths'],
  queries: [],
  listener: '/settings/WEB/server',
  control: true,
} as const satisfies ModuleRow;
