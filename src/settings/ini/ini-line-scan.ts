/**
 * The INI grammar of one line (read-ini.ts describes it): blank, comment,
 * `[section]`, `key = value`, or invalid with the reason. The reader
 * (read-ini.ts), the editor (ini-text-edit.ts), the formatter and the
 * import all classify lines with it, so they never disagree about what a
 * line is.
 */

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

const TAB = 9;
const SPACE = 32;
const SEMICOLON = 59;
const HASH = 35;
const OPEN_BRACKET = 91;
const QUOTE = 34;
const EQUALS = 61;
const CLOSE_BRACKET = 93;

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
