/**
 * Work the agent refused because a module's queue was full, by module:
 * process-wide counters the queues increment (checks/scripts/limiter.ts
 * users) and GET /api/v1/metrics shows as `agent_queue_refused_total`.
 */
const refused = new Map<string, number>();

export function countRefused(module: string): void {
  refused.set(module, (refused.get(module) ?? 0) + 1);
}

/** The counts so far, by module. */
export function refusedCounts(): ReadonlyMap<string, number> {
  return refused;
}
