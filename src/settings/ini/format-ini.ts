/**
 * The canonical layout of a settings file (`config-agent settings fmt`):
 * - `[path]` headers and `key = value` entries start at the first column,
 *   with one space on each side of `=` (`key =` for an empty value); the
 *   value is kept exactly as written, quotes included;
 * - comments keep their text, without leading blanks;
 * - one blank line before each section header (before the comments right
 *   above it, which belong to it), none at the start of the file, at most
 *   one anywhere else, none at the end;
 * - no trailing blanks; a final line ending; every line ends like the
 *   file's first line (LF or CRLF); a UTF-8 BOM stays.
 * Lines the reader cannot parse lose only their trailing blanks. The order
 * of everything is kept. Formatting is idempotent, and what the minimal-edit
 * writer (edit-ini.ts) writes into a canonical file stays canonical.
 */
import { LINE_BLANK, LINE_COMMENT, LINE_ENTRY, LINE_SECTION, newLineScan, scanLine } from './ini-line-scan.js';
import { inRange } from '../../in-range.js';

/** One line of the input that formatting changed: removed (`after` undefined), rewritten, or added (`before` undefined). */
export interface FormatChange {
  /** 1-based line in the input (for an added line: the input line it comes before). */
  line: number;
  before?: string;
  after?: string;
}

export interface Formatted {
  text: string;
  changes: FormatChange[];
}

export function formatIni(input: string): Formatted {
  const bom = input.charCodeAt(0) === 0xfeff ? '\ufeff' : '';
  const body = bom === '' ? input : input.slice(1);
  const raw = body.split('\n');
  if (raw.length > 0 && raw[raw.length - 1] === '') raw.pop(); // the final line ending
  const eol = raw[0]?.endsWith('\r') ? '\r\n' : '\n';
  const lines = raw.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));

  // 1. Each line on its own.
  const scan = newLineScan();
  const kinds: number[] = [];
  const shaped: string[] = [];
  for (const line of lines) {
    scanLine(line, 0, line.length, scan);
    kinds.push(scan.kind);
    if (scan.kind === LINE_BLANK) shaped.push('');
    else if (scan.kind === LINE_COMMENT) shaped.push(line.slice(scan.first).trimEnd());
    else if (scan.kind === LINE_SECTION) shaped.push(`[${line.slice(scan.nameStart, scan.nameEnd)}]`);
    else if (scan.kind === LINE_ENTRY) {
      const key = line.slice(scan.nameStart, scan.nameEnd);
      const value = line.slice(scan.rawStart, scan.rawEnd);
      shaped.push(value === '' ? `${key} =` : `${key} = ${value}`);
    } else shaped.push(line.replace(/[ \t]+$/, ''));
  }

  // 2. Blank lines: where a header's block (its comments right above it) starts, exactly one before it.
  const blockStart = new Set<number>();
  for (let i = 0; i < lines.length; i++) {
    if (kinds[i] !== LINE_SECTION) continue;
    let start = i;
    while (start > 0 && kinds[start - 1] === LINE_COMMENT) start--;
    blockStart.add(start);
  }
  const out: string[] = [];
  const changes: FormatChange[] = [];
  let pendingBlank: number | undefined; // input line of a blank line not yet written
  for (let i = 0; i < lines.length; i++) {
    if (kinds[i] === LINE_BLANK) {
      if (pendingBlank === undefined && out.length > 0) pendingBlank = i;
      else changes.push({ line: i + 1, before: lines[i] });
      continue;
    }
    if (out.length > 0 && (pendingBlank !== undefined || blockStart.has(i))) {
      out.push('');
      if (pendingBlank !== undefined && lines[pendingBlank] !== '')
        changes.push({ line: pendingBlank + 1, before: lines[pendingBlank], after: '' });
      if (pendingBlank === undefined) changes.push({ line: i + 1, after: '' });
    } else if (pendingBlank !== undefined) {
      changes.push({ line: pendingBlank + 1, before: lines[pendingBlank] });
    }
    pendingBlank = undefined;
    // One shaped line per input line (step 1).
    const shapedLine = inRange(shaped, i);
    out.push(shapedLine);
    if (shapedLine !== lines[i]) changes.push({ line: i + 1, before: lines[i], after: shapedLine });
  }
  if (pendingBlank !== undefined) changes.push({ line: pendingBlank + 1, before: lines[pendingBlank] });
  const text = bom + (out.length > 0 ? out.join(eol) + eol : '');
  // Line endings alone (a missing final one, or CRLF mixed into an LF file) change no line's text.
  if (changes.length === 0 && text !== input)
    changes.push({
      line: lines.length,
      before: '(line endings)',
      after: `(every line ends with ${eol === '\n' ? 'LF' : 'CRLF'}, including the last)`,
    });
  return { text, changes: changes.sort((a, b) => a.line - b.line) };
}
