/**
 * CheckSystem as the settings layer knows it, without loading its code: npm run gen
 * collects every module's descriptor into src/settings/generated/module-rows.ts.
 */
import type { ModuleRow } from '../../settings/model/module-row.js';

export const descriptor = {
  name: 'CheckSystem',
  startRank: 20,
  title: 'System checks',
  description:
    'check_cpu, check_load, check_memory, check_uptime, check_os_version, check_process, check_service, check_network, check_connections, check_kernel_stats, check_swap_io, check_cpu_utilization, check_temperature, check_os_updates, check_mailq, check_users.',
  sections: [],
  queries: [
    'check_cpu',
    'check_cpu_utilization',
    'check_load',
    'check_memory',
    'check_uptime',
    'check_os_version',
    'check_process',
    'check_network',
    'check_connections',
    'check_kernel_stats',
    'check_swap_io',
    'check_service',
    'check_temperature',
    'check_os_updates',
    'check_mailq',
    'check_users',
    'checkCPU',
    'checkMem',
    'checkUpTime',
    'checkServiceState',
    'checkProcState',
  ],
} as const satisfies ModuleRow;
