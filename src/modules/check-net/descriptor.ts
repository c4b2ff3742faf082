/**
 * CheckNet as the settings layer knows it, without loading its code: npm run gen
 * collects every module's descriptor into src/settings/generated/module-rows.ts.
 */
import type { ModuleRow } from '../../settings/model/module-row.js';

export const descriptor = {
  name: 'CheckNet',
  startRank: 50,
  title: 'Network checks',
  description: 'check_tcp, check_http, check_dns, check_ping, check_ntp_offset.',
  sections: ['/settings/net'],
  queries: ['check_tcp', 'check_http', 'check_dns', 'check_ping', 'check_ntp_offset'],
} as const satisfies ModuleRow;
