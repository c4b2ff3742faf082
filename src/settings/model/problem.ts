/** Settings problems: one shape for errors and warnings, with position. */

import { CODES, errorMessage, formatMessage, type ErrorCode } from '../../errors.js';

/** One problem (or warning) of a settings file, with where it is. */
export interface SettingsProblem {
  code: string;
  severity: 'error' | 'warning';
  message: string;
  file: string;
  line: number;
  col: number;
  section?: string;
  key?: string;
}

export function problem(
  code: ErrorCode,
  args: readonly unknown[],
  at: { file: string; line: number; col: number; section?: string | undefined; key?: string | undefined },
  extra = '',
): SettingsProblem {
  const info = CODES[code] as { severity?: 'error' | 'warning' };
  return {
    code,
    severity: info.severity ?? 'error',
    message: formatMessage(code, args) + extra,
    file: at.file,
    line: at.line,
    col: at.col,
    ...(at.section !== undefined ? { section: at.section } : {}),
    ...(at.key !== undefined ? { key: at.key } : {}),
  };
}

/** Sort by file, line, column for stable output. */
export function sortProblems(list: SettingsProblem[]): SettingsProblem[] {
  return list.sort((a, b) => (a.file === b.file ? a.line - b.line || a.col - b.col : a.file < b.file ? -1 : 1));
}

/**
 * `CODE [section] key: message`: how a problem reads in the log and, behind
 * its `file:line:col: level` prefix, on the command line. The key is not
 * repeated when the message already starts with it.
 */
export function describeProblem(p: SettingsProblem): string {
  const key = p.key && !p.message.startsWith(p.key) ? ` ${p.key}` : '';
  const where = p.section ? ` [${p.section}]${key}` : '';
  return `${p.code}${where}: ${p.message}`;
}

/** A reload that failed for a reason other than the files' content (an unexpected throw): AGENT_ERR_SETTINGS_RELOAD. */
export function reloadFailure(file: string, err: unknown): SettingsProblem {
  return {
    code: 'AGENT_ERR_SETTINGS_RELOAD',
    severity: 'error',
    message: formatMessage('AGENT_ERR_SETTINGS_RELOAD', [file, errorMessage(err)]),
    file,
    line: 0,
    col: 0,
  };
}

/** The warnings of `after` that `before` did not have: each warning is logged once, a reload that keeps it says nothing new. */
export function newWarnings(before: readonly SettingsProblem[], after: readonly SettingsProblem[]): SettingsProblem[] {
  const seen = new Set(before.map(warningKey));
  return after.filter((w) => !seen.has(warningKey(w)));
}

function warningKey(p: SettingsProblem): string {
  return `${p.code}|${p.section ?? ''}|${p.key ?? ''}|${p.message}`;
}
