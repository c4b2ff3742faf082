/**
 * CheckHelpers as the settings layer knows it, without loading its code: npm run gen
 * collects every module's descriptor into src/settings/generated/module-rows.ts.
 */
import type { ModuleRow } from '../../settings/model/module-row.js';

export const descriptor = {
  name: 'CheckHelpers',
  startRank: 10,
  title: 'Helper checks',
  description:
    'check_ok, check_warning, check_critical, check_version, check_negate, check_multi, check_timeout, check_index, check_dummy, check_settings.',
  sections: [],
  queries: [
    'check_ok',
    'check_warning',
    'check_critical',
    'check_version',
    'check_negate',
    'check_multi',
    'check_timeout',
    'check_index',
    'check_dummy',
    'check_settings',
  ],
} as const satisfies ModuleRow;
