/**
 * CheckDisk: check_drivesize, check_files, check_mount and check_drive_io
 * (library code in src/checks/disk/), and NSClient++'s legacy
 * CheckDriveSize, CheckFiles and checkFile2 (src/checks/legacy/).
 */
import type { AgentModule, ModuleContext } from '../module.js';
import type { SettingsOf } from '../../settings/model/module-table.js';
import { drivesizeCheck } from '../../checks/disk/drivesize-check.js';
import { filesCheck } from '../../checks/disk/files-check.js';
import { registerChecks } from '../../checks/register.js';
import { mountCheck } from '../../checks/disk/mount-check.js';
import { driveIoCheck } from '../../checks/disk/drive-io-check.js';
import { DISK_LEGACY, registerLegacy } from '../../checks/legacy/legacy-commands.js';

const allowedOf = (s: SettingsOf<'CheckDisk'>): string[] =>
  s.sections['/settings/disk']['allowed paths']
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);

export const agentModule: AgentModule<SettingsOf<'CheckDisk'>> = {
  name: 'CheckDisk',
  async start(ctx: ModuleContext<SettingsOf<'CheckDisk'>>) {
    let allowed = allowedOf(ctx.settings);
    const defs = [drivesizeCheck(), filesCheck(() => allowed), mountCheck(), driveIoCheck()];
    const undo = [
      registerChecks(ctx.core, 'CheckDisk', defs),
      registerLegacy(ctx.core, 'CheckDisk', DISK_LEGACY, defs),
    ];
    return {
      async apply(next) {
        allowed = allowedOf(next);
        return true;
      },
      async stop() {
        for (const u of undo.splice(0)) u();
      },
    };
  },
};
