/**
 * CheckDisk as the settings layer knows it, without loading its code: npm run gen
 * collects every module's descriptor into src/settings/generated/module-rows.ts.
 */
import type { ModuleRow } from '../../settings/model/module-row.js';

export const descriptor = {
  name: 'CheckDisk',
  startRank: 30,
  title: 'Disk checks',
  description: 'check_drivesize, check_files, check_mount and check_drive_io.',
  sections: ['/settings/disk'],
  queries: [
    'check_drivesize',
    'check_files',
    'check_drive_io',
    'check_mount',
    'CheckDriveSize',
    'CheckFiles',
    'checkFile2',
  ],
} as const satisfies ModuleRow;
