/** One line per settings problem: `file:line:col: error CODE [section] key: message`. */
import type { SettingsProblem } from '../settings/problem.js';

export function formatProblem(p: SettingsProblem): string {
  const key = p.key && !p.message.startsWith(p.key) ? ` ${p.key}` : '';
  const where = p.section ? ` [${p.section}]${key}` : '';
  return `${p.file}:${p.line}:${p.col}: ${p.severity} ${p.code}${where}: ${p.message}`;
}
