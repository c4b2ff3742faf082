/**
 * Rules that span several keys of a section and that JSON Schema alone does
 * not express; each broken rule is an error at the key that decides it.
 * - `[/settings/agent/server]` with `use ssl` on and a `verify mode` other
 *   than none needs a `ca` to check client certificates against.
 */
import type { Origin } from './snapshot.js';
import type { SettingsProblem } from './problem.js';
import { problem } from './problem.js';

export function crossChecks(
  file: string,
  sections: Record<string, Record<string, unknown>>,
  origins: Record<string, Record<string, Origin>>,
): SettingsProblem[] {
  const out: SettingsProblem[] = [];
  const path = '/settings/agent/server';
  const s = sections[path] ?? {};
  const mode = String(s['verify mode'] ?? 'none');
  if (s['use ssl'] !== false && mode !== 'none' && !s.ca) {
    const o = origins[path]?.['verify mode'];
    out.push(problem('AGENT_ERR_VALUE_INVALID', [`verify mode "${mode}" needs a ca to check client certificates against; set ca or use verify mode none`], { file, line: o?.line ?? 0, col: o?.col ?? 0, section: path, key: 'verify mode' }));
  }
  return out;
}
