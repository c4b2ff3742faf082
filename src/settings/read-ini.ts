/**
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
 * astral planes).
 */
import { formatMessage, type ErrorCode } from '../errors.js';

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

/** What one line is; see {@link scanLine}. */
export const LINE_BLANK = 0;
export const LINE_COMMENT = 1;
export const LINE_SECTION = 2;
export const LINE_ENTRY = 3;
export const LINE_INVALID = 4;

/**
 * The result of {@link scanLine}. Offsets index the scanned string; end
 * offsets are exclusive. One object is reused for every line so that a
 * large file does not allocate per line.
 */
export interface LineScan {
  kind: number;
  /** First non-blank character (all kinds but blank). */
  first: number;
  /** Section: the trimmed path. Entry: the trimmed key. */
  nameStart: number;
  nameEnd: number;
  /** Entry: index of the `=`. */
  eq: number;
  /** Entry: the trimmed value as written, quotes included. */
  rawStart: number;
  rawEnd: number;
  /** Entry: the value after quote stripping. */
  valueStart: number;
  valueEnd: number;
  /** Invalid: why, for the message. */
  reason: string;
}

export function newLineScan(): LineScan {
  return {
    kind: LINE_BLANK,
    first: 0,
    nameStart: 0,
    nameEnd: 0,
    eq: -1,
    rawStart: 0,
    rawEnd: 0,
    valueStart: 0,
    valueEnd: 0,
    reason: '',
  };
}

/**
 * Classify `s[start, end)` (one line without its line ending) into `out`.
 * This is the whole INI grammar; the reader and the editor both use it so
 * that they never disagree about what a line is.
 */
export function scanLine(s: string, start: number, end: number, out: LineScan): void {
  let first = start;
  while (first < end && isBlank(s.charCodeAt(first))) first++;
  out.first = first;
  if (first === end) {
    out.kind = LINE_BLANK;
    return;
  }
  const c = s.charCodeAt(first);
  if (c === SEMICOLON || c === HASH) {
    out.kind = LINE_COMMENT;
    return;
  }
  if (c === OPEN_BRACKET) {
    scanSection(s, first, end, out);
    return;
  }
  const eq = indexIn(s, EQUALS, first, end);
  if (eq === -1) return invalid(out, 'expected [section], key = value, or a comment starting with ; or #');
  let keyEnd = eq;
  while (keyEnd > first && isBlank(s.charCodeAt(keyEnd - 1))) keyEnd--;
  if (keyEnd === first) return invalid(out, 'missing key before "="');
  let rawStart = eq + 1;
  while (rawStart < end && isBlank(s.charCodeAt(rawStart))) rawStart++;
  let rawEnd = end;
  while (rawEnd > rawStart && isBlank(s.charCodeAt(rawEnd - 1))) rawEnd--;
  out.kind = LINE_ENTRY;
  out.nameStart = first;
  out.nameEnd = keyEnd;
  out.eq = eq;
  out.rawStart = rawStart;
  out.rawEnd = rawEnd;
  if (rawEnd - rawStart >= 2 && s.charCodeAt(rawStart) === QUOTE && s.charCodeAt(rawEnd - 1) === QUOTE) {
    out.valueStart = rawStart + 1;
    out.valueEnd = rawEnd - 1;
  } else if (rawStart === rawEnd) {
    out.valueStart = out.valueEnd = eq + 1;
  } else {
    out.valueStart = rawStart;
    out.valueEnd = rawEnd;
  }
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
const TAB = 9;
const SPACE = 32;
const SEMICOLON = 59;
const HASH = 35;
const OPEN_BRACKET = 91;
const QUOTE = 34;
const EQUALS = 61;
const CLOSE_BRACKET = 93;
const EXCERPT_MAX = 60;

interface SectionState {
  section: IniSection;
  /** Lower-cased key -> index in section.entries. */
  keys: Map<string, number>;
  /** Line of the first occurrence of the key at the same index. */
  firstLines: number[];
}

function isBlank(c: number): boolean {
  return c === SPACE || c === TAB;
}

/**
 * First index of the character code within `s[from, end)`, or -1. Unlike
 * `indexOf`, it never looks past the line, so a file of many broken lines
 * stays linear.
 */
function indexIn(s: string, code: number, from: number, end: number): number {
  for (let i = from; i < end; i++) if (s.charCodeAt(i) === code) return i;
  return -1;
}

function invalid(out: LineScan, reason: string): void {
  out.kind = LINE_INVALID;
  out.reason = reason;
}

/** `[path]` with only blanks after the `]`; `first` is the `[`. */
function scanSection(s: string, first: number, end: number, out: LineScan): void {
  const close = indexIn(s, CLOSE_BRACKET, first + 1, end);
  if (close === -1) return invalid(out, 'missing "]"');
  for (let i = close + 1; i < end; i++) {
    if (!isBlank(s.charCodeAt(i))) return invalid(out, 'text after "]"');
  }
  let nameStart = first + 1;
  let nameEnd = close;
  while (nameStart < nameEnd && isBlank(s.charCodeAt(nameStart))) nameStart++;
  while (nameEnd > nameStart && isBlank(s.charCodeAt(nameEnd - 1))) nameEnd--;
  if (nameStart === nameEnd) return invalid(out, 'empty section name');
  if (s.charCodeAt(nameStart) === OPEN_BRACKET) return invalid(out, 'unbalanced brackets');
  out.kind = LINE_SECTION;
  out.nameStart = nameStart;
  out.nameEnd = nameEnd;
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
