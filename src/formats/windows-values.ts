/**
 * Values of a query command line (an alias, a schedule's command) that mean
 * something only on Windows, where NSClient++ came from: a drive letter
 * given to check_drivesize (`drive=c:`, `Drive=d:\`, as NSClient++'s and
 * its legacy CheckDriveSize's examples write it) and the process attribute
 * `is_hung` (a Windows window that stopped answering). Both survive an
 * import as written and answer UNKNOWN here (no such mount point; an
 * unknown name), so the import report and `settings validate` point them
 * out. Settings validation (settings/model/windows-value-warnings.ts) and the
 * NSClient++ import read it.
 */
import { splitAliasCommand } from './alias-command.js';

/** check_drivesize under its own and its legacy names (lower case). */
const DRIVESIZE = new Set(['check_drivesize', 'checkdrivesize']);

/** The Windows-only values in `command` (a query and its arguments), each as written; none when it does not parse. */
export function windowsOnlyValues(command: string): string[] {
  let words: string[];
  try {
    words = splitAliasCommand(command);
  } catch {
    return [];
  }
  const [query = '', ...args] = words;
  const found: string[] = [];
  for (const a of args) {
    if (DRIVESIZE.has(query.toLowerCase()) && /^drive=[a-z]:[\\/]?$/i.test(a)) found.push(a);
    else if (/\bis_hung\b/i.test(a)) found.push('is_hung');
  }
  return [...new Set(found)];
}
