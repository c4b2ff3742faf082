/**
 * CheckSystem: check_cpu, check_load, check_memory, check_uptime,
 * check_os_version and check_process (library code in src/checks/system/),
 * and the Linux host checks of hostSystemChecks() (check_service,
 * check_network, check_connections, ...; see host-system-checks.ts).
 * NSClient++'s legacy names (checkCPU, checkMem, ...) translate to these
 * (src/checks/legacy/). The CPU sampler runs from start() to stop(), one /proc/stat reading a
 * second, on an unref()ed timer.
 */
import type { AgentModule, ModuleContext } from '../module.js';
import type { SettingsOf } from '../../settings/model/module-table.js';
import { CpuSampler } from '../../checks/system/cpu-sampler.js';
import { cpuCheck, loadCheck } from '../../checks/system/cpu-checks.js';
import { memoryCheck, osVersionCheck, uptimeCheck } from '../../checks/system/host-checks.js';
import { processCheck } from '../../checks/system/process-check.js';
import { registerChecks } from '../../checks/register.js';
import { hostSystemChecks } from '../../checks/system/host-system-checks.js';
import { registerLegacy, SYSTEM_LEGACY } from '../../checks/legacy/legacy-commands.js';
import { usersCheck } from '../../checks/system/users-check.js';
import { startWithReleases } from '../releases.js';

export const agentModule: AgentModule<SettingsOf<'CheckSystem'>> = {
  name: 'CheckSystem',
  start: (ctx: ModuleContext<SettingsOf<'CheckSystem'>>) =>
    startWithReleases(ctx, async (releases) => {
      const sampler = new CpuSampler({ intervalMs: 1000 });
      releases.add(() => sampler.stop());
      await sampler.start();
      const defs = [
        cpuCheck(sampler),
        loadCheck(),
        memoryCheck(),
        uptimeCheck(),
        osVersionCheck(),
        processCheck(),
        usersCheck(),
        ...hostSystemChecks(),
      ];
      releases.add(registerChecks(ctx.core, 'CheckSystem', defs));
      releases.add(registerLegacy(ctx.core, 'CheckSystem', SYSTEM_LEGACY, defs));
      return {
        async apply() {
          return true;
        },
        stop: () => releases.releaseAll(),
      };
    }),
};
