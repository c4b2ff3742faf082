/**
 * CheckExternalScripts as the settings layer knows it, without loading its code: npm run gen
 * collects every module's descriptor into src/settings/generated/module-rows.ts.
 */
import type { ModuleRow } from '../../settings/model/module-row.js';

export const descriptor = {
  name: 'CheckExternalScripts',
  startRank: 60,
  title: 'External scripts',
  description: 'Runs configured scripts as queries.',
  sections: [
    '/settings/external scripts',
    '/settings/external scripts/scripts',
    '/settings/external scripts/alias',
    '/settings/external scripts/wrappings',
    '/settings/external scripts/wrapped scripts',
    '/settings/external scripts/nrpe commands',
    '/paths',
  ],
  queries: [],
} as const satisfies ModuleRow;
