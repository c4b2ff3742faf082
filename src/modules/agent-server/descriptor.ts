/**
 * AgentServer as the settings layer knows it, without loading its code: npm run gen
 * collects every module's descriptor into src/settings/generated/module-rows.ts.
 */
import type { ModuleRow } from '../../settings/model/module-row.js';

export const descriptor = {
  name: 'AgentServer',
  startRank: 150,
  title: 'Agent-protocol server',
  description: 'Answers other agents over the agent protocol.',
  sections: ['/settings/agent/server', '/paths'],
  queries: ['agent_submissions'],
  listener: '/settings/agent/server',
} as const satisfies ModuleRow;
