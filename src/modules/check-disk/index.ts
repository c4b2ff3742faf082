/**
 * CheckDisk: check_drivesize, check_files, check_mount and check_drive_io
 * (library code in src/checks/disk/).
 */
import type { AgentModule, ModuleContext } from '../module.js';
import type { SettingsOf } from '../../settings/module-table.js';
import { drivesizeCheck } from '../../checks/disk/drivesize-check.js';
import { filesCheck } from '../../checks/disk/files-check.js';
import { registerChecks } from '../../checks/register.js';
import { mountCheck } from '../../checks/disk/mount-check.js';
import { driveIoCheck } from '../../checks/disk/drive-io-check.js';

const allowedOf = (s: SettingsOf<'CheckDisk'>): string[] =>
  s.sections['/settings/disk']['allowed paths']
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);

export function createModule(): AgentModule<SettingsOf<'CheckDisk'>> {
  let unregister: (() => void) | undefined;
  let allowed: string[] = [];
  return {
    name: 'CheckDisk',
    async start(ctx: ModuleContext<SettingsOf<'CheckDisk'>>) {
      allowed = allowedOf(ctx.settings);
      unregister = registerChecks(ctx.core, 'CheckDisk', [drivesizeCheck(), filesCheck(() => allowed), mountCheck(), driveIoCheck()]);
    },
    async apply(next: SettingsOf<'CheckDisk'>) {
      allowed = allowedOf(next);
      return true;
    },
    async stop() {
      unregister?.();
      unregister = undefined;
    },
  };
}
