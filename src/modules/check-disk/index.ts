/**
 * CheckDisk: check_drivesize and check_files (library code in src/checks/disk/).
 */
import type { AgentModule, ModuleContext } from '../module.js';
import { drivesizeCheck } from '../../checks/disk/drivesize-check.js';
import { filesCheck } from '../../checks/disk/files-check.js';
import { registerChecks } from '../../checks/register.js';

export function createModule(): AgentModule {
  let unregister: (() => void) | undefined;
  return {
    name: 'CheckDisk',
    async start(ctx: ModuleContext) {
      unregister = registerChecks(ctx.core, 'CheckDisk', [drivesizeCheck(), filesCheck()]);
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
