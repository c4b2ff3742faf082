/**
 * settings/ini/: the INI grammar, text in and text out, no file access:
 * this reader, the line scanner every other part classifies lines with
 * (ini-line-scan.ts), the comment-keeping editor (ini-text-edit.ts) and the
 * canonical layout of `settings fmt` (format-ini.ts).
 *
 * Reads NSClient++-style INI text into sections and entries that remember
 * where they were written (file, 1-based line and column).
 *
 * Grammar, one line at a time (lines end in LF or CRLF; a leading UTF-8 BOM
 * is skipped and not counted in columns):
 * - blank line: only spaces and tabs;
 * - comment: the first non-blank character is `;` or `#`. There are no
 *   inline comments: `password = ab;cd#e` has the value `ab;cd#e`;
 * - section header: `[path]`, optionally surrounded by blanks. The path is
 *   kept as written (trimmed); dots are ordinary characters, so
 *   `[/settings/remote/client/targets/web.example.com]` is one section;
 * - entry: `key = value`, split at the first `=`. Key and value are trimmed
 *   of spaces and tabs; keys may contain spaces (`allowed hosts`); the value
 *   may contain `=`, `;`, `#` and spaces; `key =` is an empty value. One pair
 *   of surrounding double quotes is stripped (`key = "  x  "` is `  x  `);
 *   there are no escapes inside quotes;
 * - anything else is an AGENT_ERR_INI_SYNTAX problem at its line. The keys
 *   after a broken section header (`[/settings/web`) are dropped rather than
 *   given to the previous section, where they could override its values.
 *
 * Section paths and keys keep their spelling, but duplicates are found
 * case-insensitively, as NSClient++ paths are case-insensitive. A duplicate
 * section is merged into the first one; a duplicate key keeps the last value.
 * Both are reported with the line of the first occurrence. Problems never
 * stop the parse: the caller gets every problem of the file at once.
 *
 * Columns count UTF-16 code units (characters, for all text outside the
 * astral planes). What one line is, is decided in ini-line-scan.ts.
 */
import { formatMessage, type ErrorCode } from '../../errors.js';
import { LINE_ENTRY, LINE_INVALID, LINE_SECTION, newLineScan, scanLine } from './ini-line-scan.js';

export interface IniEntry {
  key: string;
  value: string;
  line: number;
  keyCol: number;
  /** First character of the value (after an opening quote); for an empty value, just after `=`. */
  valueCol: number;
  /** The file the entry is written in, when it differs from the section's (set where includes merge sections). */
  file?: string;
}

export interface IniSection {
  /** As written between the brackets, trimmed. */
  path: string;
  line: number;
  /** Column of the path's first character. */
  col: number;
  entries: IniEntry[];
}

export interface IniProblem {
  code:
    | 'AGENT_ERR_INI_SYNTAX'
    | 'AGENT_ERR_INI_KEY_OUTSIDE_SECTION'
    | 'AGENT_ERR_INI_DUPLICATE_SECTION'
    | 'AGENT_ERR_INI_DUPLICATE_KEY';
  message: string;
  line: number;
  col: number;
  section?: string;
  key?: string;
  /** For duplicates: the line of the first occurrence. */
  firstLine?: number;
}

export interface IniDocument {
  file: string;
  sections: IniSection[];
  problems: IniProblem[];
}

/**
 * Parse INI text. Never throws: every problem is listed in `problems`
 * (syntax errors, keys before any section, duplicate sections and keys),
 * and everything that could be read is in `sections`, in file order.
 */
export function parseIni(text: string, file: string): IniDocument {
  const sections: IniSection[] = [];
  const problems: IniProblem[] = [];
  const byPath = new Map<string, SectionState>();
  const scan = newLineScan();
  const len = text.length;
  let pos = len > 0 && text.charCodeAt(0) === BOM ? 1 : 0;
  let lineNo = 0;
  /** undefined: before any section; null: after a broken header, whose keys are dropped (the header is reported). */
  let current: SectionState | undefined | null;

  while (pos < len) {
    let nl = text.indexOf('\n', pos);
    if (nl === -1) nl = len;
    const end = nl > pos && text.charCodeAt(nl - 1) === CR ? nl - 1 : nl;
    lineNo++;
    scanLine(text, pos, end, scan);
    const kind = scan.kind;
    if (kind === LINE_ENTRY) {
      const key = text.slice(scan.nameStart, scan.nameEnd);
      const keyCol = scan.nameStart - pos + 1;
      if (current === undefined) {
        // Position only: a file that is not INI at all (an included private key, whose base64 lines end
        // in =) would otherwise have its text before each = shown.
        problems.push(problem('AGENT_ERR_INI_KEY_OUTSIDE_SECTION', [], lineNo, keyCol, {}));
      } else if (current !== null) {
        const entry: IniEntry = {
          key,
          value: text.slice(scan.valueStart, scan.valueEnd),
          line: lineNo,
          keyCol,
          valueCol: scan.valueStart - pos + 1,
        };
        addEntry(current, entry, problems);
      }
    } else if (kind === LINE_SECTION) {
      const path = text.slice(scan.nameStart, scan.nameEnd);
      const col = scan.nameStart - pos + 1;
      const lower = path.toLowerCase();
      const seen = byPath.get(lower);
      if (seen !== undefined) {
        problems.push(
          problem('AGENT_ERR_INI_DUPLICATE_SECTION', [path, seen.section.line], lineNo, col, {
            section: path,
            firstLine: seen.section.line,
          }),
        );
        current = seen;
      } else {
        current = { section: { path, line: lineNo, col, entries: [] }, keys: new Map(), firstLines: [] };
        byPath.set(lower, current);
        sections.push(current.section);
      }
    } else if (kind === LINE_INVALID) {
      // A section header is shown; any other line may hold a secret
      // (`password: S3cret`), so only its position and the reason are.
      const shown =
        text.charCodeAt(scan.first) === OPEN_BRACKET
          ? `"${excerptOf(text.slice(scan.first, end))}"`
          : '(content not shown: it may hold a secret)';
      problems.push(
        problem(
          'AGENT_ERR_INI_SYNTAX',
          [`${shown} (${scan.reason})`],
          lineNo,
          scan.first - pos + 1,
          current ? { section: current.section.path } : {},
        ),
      );
      if (text.charCodeAt(scan.first) === OPEN_BRACKET) current = null;
    }
    pos = nl + 1;
  }
  return { file, sections, problems };
}

// ---------------------------------------------------------------------------
// Helpers

const BOM = 0xfeff;
const CR = 13;
const OPEN_BRACKET = 91;
const EXCERPT_MAX = 60;

interface SectionState {
  section: IniSection;
  /** Lower-cased key -> index in section.entries. */
  keys: Map<string, number>;
  /** Line of the first occurrence of the key at the same index. */
  firstLines: number[];
}

/** Add an entry; a repeated key replaces the earlier entry (last value wins) and is reported. */
function addEntry(state: SectionState, entry: IniEntry, problems: IniProblem[]): void {
  const lower = entry.key.toLowerCase();
  const index = state.keys.get(lower);
  if (index === undefined) {
    state.keys.set(lower, state.section.entries.length);
    state.firstLines.push(entry.line);
    state.section.entries.push(entry);
    return;
  }
  const firstLine = state.firstLines[index];
  const path = state.section.path;
  problems.push(
    problem('AGENT_ERR_INI_DUPLICATE_KEY', [entry.key, path, firstLine], entry.line, entry.keyCol, {
      section: path,
      key: entry.key,
      firstLine,
    }),
  );
  state.section.entries[index] = entry;
}

function problem(
  code: IniProblem['code'],
  args: readonly unknown[],
  line: number,
  col: number,
  extra: Pick<IniProblem, 'section' | 'key' | 'firstLine'>,
): IniProblem {
  return { code, message: formatMessage(code satisfies ErrorCode, args), line, col, ...extra };
}

function excerptOf(line: string): string {
  const trimmed = line.trimEnd();
  return trimmed.length > EXCERPT_MAX ? `${trimmed.slice(0, EXCERPT_MAX)}…` : trimmed;
}
