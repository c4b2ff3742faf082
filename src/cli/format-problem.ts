/** One line per settings problem: `file:line:col: level CODE [section] key: message` (line and column left out when unknown). */
import { describeProblem, type SettingsProblem } from '../settings/model/problem.js';

export function formatProblem(p: SettingsProblem): string {
  const at = p.line > 0 ? `:${p.line}:${p.col}` : '';
  return `${p.file}${at}: ${p.severity} ${describeProblem(p)}`;
}
