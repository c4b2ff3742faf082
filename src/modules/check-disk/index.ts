/**
 * CheckDisk: check_drivesize, check_files, check_mount and check_drive_io
 * (library code in src/checks/disk/), and NSClient++'s legacy
 * CheckDriveSize, CheckFiles and checkFile2 (src/checks/legacy/).
 */
import type { AgentModule, ModuleContext } from '../module.js';
import type { SettingsOf } from '../../settings/module-table.js';
import { drivesizeCheck } from '../../checks/disk/drivesize-check.js';
import { filesCheck } from '../../checks/disk/files-check.js';
import { registerChecks } from '../../checks/register.js';
import { mountCheck } from '../../checks/disk/mount-check.js';
import { driveIoCheck } from '../../checks/disk/drive-io-check.js';
import { DISK_LEGACY, registerLegacy } from '../../checks/legacy/legacy-commands.js';

export function createModule(): AgentModule<SettingsOf<'CheckDisk'>> {
  let unregister: (() => void) | undefined;
  return {
    name: 'CheckDisk',
    async start(ctx: ModuleContext<SettingsOf<'CheckDisk'>>) {
      const defs = [drivesizeCheck(), filesCheck(), mountCheck(), driveIoCheck()];
      const undo = [registerChecks(ctx.core, 'CheckDisk', defs), registerLegacy(ctx.core, 'CheckDisk', DISK_LEGACY, defs)];
      unregister = () => undo.forEach((u) => u());
    },
    async apply() {
      return true;
    },
    async stop() {
      unregister?.();
      unregister = undefined;
    },
  };
}
