/**
 * Placeholder for the CheckDisk module until its issue lands: starting it fails
 * with a clear message, so enabling it is visible as a failed module.
 */
import type { AgentModule } from '../module.js';

export function createModule(): AgentModule {
  return {
    name: 'CheckDisk',
    async start() {
      throw new Error('CheckDisk is not implemented yet');
    },
    async stop() {},
  };
}
