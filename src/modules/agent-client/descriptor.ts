/**
 * AgentClient as the settings layer knows it, without loading its code: npm run gen
 * collects every module's descriptor into src/settings/generated/module-rows.ts.
 */
import type { ModuleRow } from '../../settings/model/module-row.js';

export const descriptor = {
  name: 'AgentClient',
  startRank: 140,
  title: 'Agent-protocol client',
  description: 'agent_query, agent_exec and agent_submit against other agents.',
  sections: ['/settings/agent/client', '/settings/agent/client/handlers', '/settings/agent/client/targets', '/paths'],
  queries: ['agent_query', 'agent_exec', 'agent_submit'],
} as const satisfies ModuleRow;
