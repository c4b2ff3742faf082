/**
 * Placeholder for the AgentClient module until its issue lands: starting it fails
 * with a clear message, so enabling it is visible as a failed module.
 */
import type { AgentModule } from '../module.js';

export function createModule(): AgentModule {
  return {
    name: 'AgentClient',
    async start() {
      throw new Error('AgentClient is not implemented yet');
    },
    async stop() {},
  };
}
