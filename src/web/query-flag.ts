/** A true/false query parameter (`?recursive=false`, `?all=yes`): formats/boolean.ts's words; absent or empty is `fallback`; any other text is a 400. */
import { AgentError } from '../errors.js';
import { parseBoolean } from '../formats/boolean.js';

export function queryFlag(value: unknown, name: string, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  const on = typeof value === 'string' ? parseBoolean(value) : undefined;
  if (on === undefined) throw new AgentError('AGENT_ERR_HTTP_BAD_REQUEST', [`${name} must be true or false`]);
  return on;
}
