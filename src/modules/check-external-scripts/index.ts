/**
 * Placeholder for the CheckExternalScripts module until its issue lands: starting it fails
 * with a clear message, so enabling it is visible as a failed module.
 */
import type { AgentModule } from '../module.js';

export function createModule(): AgentModule {
  return {
    name: 'CheckExternalScripts',
    async start() {
      throw new Error('CheckExternalScripts is not implemented yet');
    },
    async stop() {},
  };
}
