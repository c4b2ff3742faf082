/**
 * Minimal edits of INI text (pure, no file access): sets and removes keys and
 * sections while changing only the lines it must. Comments, order, blank lines, line
 * endings (per line: CRLF stays CRLF), a UTF-8 BOM and every untouched byte
 * stay as they were. It reads lines with the same grammar as read-ini.ts.
 *
 * Rules (sections and keys match case-insensitively, as NSClient++ does):
 * - `set` of an existing key replaces only the value part of its line (the
 *   key's spelling and the spacing around `=` stay). When the key appears more
 *   than once, the last occurrence is edited: that is the one the reader keeps.
 * - `set` of a new key in an existing section inserts `key = value` right
 *   after the section's last key line (the first occurrence of a section
 *   written twice), with that line's indentation; directly after the header
 *   when the section has no keys.
 * - `set` in a missing section appends `[section]` and the key at the end of
 *   the file, after one blank line, using the file's line ending (that of its
 *   first line; LF for a file without one); the file then ends with a newline.
 * - A value with leading or trailing blanks, or one that starts and ends with
 *   `"`, is written inside double quotes so that the reader gets it back
 *   exactly. Values, keys and sections with a newline are refused
 *   (AGENT_ERR_VALUE_INVALID), as are keys with `=` and names that would
 *   read back as something else.
 * - `remove-key` deletes every line of that key in the section (all
 *   occurrences, so no older value comes back).
 * - `remove-section` deletes, for every occurrence of the section, the header
 *   through its last key line, including the comments and blank lines between
 *   its keys. Comments above the header and lines after the last key (which
 *   usually introduce the next section) stay. One blank line next to the
 *   removed block is dropped so that blank lines do not pile up.
 * - Removing what is not there changes nothing.
 */
import { AgentError } from '../../errors.js';

/** One edit of a settings file: set a key, remove a key, or remove a section. */
export type SettingsEdit =
  | { op: 'set'; section: string; key: string; value: string }
  | { op: 'remove-key'; section: string; key: string }
  | { op: 'remove-section'; section: string };
import { LINE_BLANK, LINE_ENTRY, LINE_INVALID, LINE_SECTION, newLineScan, scanLine } from './ini-line-scan.js';
import { inRange } from '../../in-range.js';

/**
 * Apply `edits` in order to INI `text` and return the new text. Pure. Throws
 * AGENT_ERR_VALUE_INVALID (before changing anything) when an edit names an
 * impossible section, key or value.
 */
export function applyEdits(text: string, edits: readonly SettingsEdit[]): string {
  for (const edit of edits) checkEdit(edit);
  const bom = text.charCodeAt(0) === 0xfeff ? '\ufeff' : '';
  const lines = splitLines(bom === '' ? text : text.slice(1));
  const eol = lines.find((l) => l.eol !== '')?.eol ?? '\n';
  for (const edit of edits) {
    if (edit.op === 'set') setKey(lines, edit.section.trim(), edit.key.trim(), edit.value, eol);
    else if (edit.op === 'remove-key') removeKey(lines, edit.section.trim(), edit.key.trim());
    else removeSection(lines, edit.section.trim());
  }
  let out = bom;
  for (const line of lines) out += line.text + line.eol;
  return out;
}

interface Line {
  text: string;
  /** '\n', '\r\n', or '' for a last line without a line ending. */
  eol: string;
}

interface KeyLine {
  index: number;
  lower: string;
  eq: number;
  rawStart: number;
  rawEnd: number;
}

interface Block {
  lower: string;
  header: number;
  keys: KeyLine[];
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let pos = 0;
  while (pos < text.length) {
    const nl = text.indexOf('\n', pos);
    if (nl === -1) {
      lines.push({ text: text.slice(pos), eol: '' });
      break;
    }
    const cr = nl > pos && text.charCodeAt(nl - 1) === 13;
    lines.push({ text: text.slice(pos, cr ? nl - 1 : nl), eol: cr ? '\r\n' : '\n' });
    pos = nl + 1;
  }
  return lines;
}

/** Every occurrence of the section (lower-cased path), in file order. */
function blocksOf(lines: readonly Line[], section: string): Block[] {
  const wanted = section.toLowerCase();
  const scan = newLineScan();
  const blocks: Block[] = [];
  let current: Block | undefined;
  for (const [i, { text: t }] of lines.entries()) {
    scanLine(t, 0, t.length, scan);
    if (scan.kind === LINE_SECTION) {
      const lower = t.slice(scan.nameStart, scan.nameEnd).toLowerCase();
      current = lower === wanted ? { lower, header: i, keys: [] } : undefined;
      if (current) blocks.push(current);
    } else if (scan.kind === LINE_INVALID && t.charCodeAt(scan.first) === 91) {
      current = undefined; // a broken `[header`: the reader drops its keys, so do we
    } else if (scan.kind === LINE_ENTRY && current) {
      current.keys.push({
        index: i,
        lower: t.slice(scan.nameStart, scan.nameEnd).toLowerCase(),
        eq: scan.eq,
        rawStart: scan.rawStart,
        rawEnd: scan.rawEnd,
      });
    }
  }
  return blocks;
}

function setKey(lines: Line[], section: string, key: string, value: string, eol: string): void {
  const written = formatValue(value);
  const blocks = blocksOf(lines, section);
  if (blocks.length === 0) {
    const last = lines[lines.length - 1];
    if (last !== undefined) {
      if (last.eol === '') last.eol = eol;
      if (!isBlankLine(last.text)) lines.push({ text: '', eol });
    }
    lines.push({ text: `[${section}]`, eol }, { text: keyLine('', key, written), eol });
    return;
  }
  const lower = key.toLowerCase();
  const hit = blocks
    .flatMap((b) => b.keys)
    .filter((k) => k.lower === lower)
    .pop();
  if (hit !== undefined) {
    const line = inRange(lines, hit.index);
    if (written === '') line.text = line.text.slice(0, hit.eq + 1);
    else {
      const before = line.text.slice(0, hit.rawStart);
      const gap = hit.rawStart === hit.rawEnd && !/[ \t]$/.test(before) ? ' ' : '';
      line.text = before + gap + written + line.text.slice(hit.rawEnd);
    }
    return;
  }
  const first = inRange(blocks, 0);
  const lastKey = first.keys.at(-1);
  const after = lastKey ? lastKey.index : first.header;
  const indent = lastKey ? (/^[ \t]*/.exec(inRange(lines, after).text)?.[0] ?? '') : '';
  insertLine(lines, after + 1, keyLine(indent, key, written), eol);
}

function removeKey(lines: Line[], section: string, key: string): void {
  const lower = key.toLowerCase();
  const doomed = blocksOf(lines, section)
    .flatMap((b) => b.keys)
    .filter((k) => k.lower === lower)
    .map((k) => k.index);
  for (const index of doomed.reverse()) lines.splice(index, 1);
}

function removeSection(lines: Line[], section: string): void {
  const blocks = blocksOf(lines, section);
  for (const block of blocks.reverse()) {
    let start = block.header;
    let end = block.keys.at(-1)?.index ?? block.header; // inclusive
    const lineBefore = lines[start - 1];
    const lineAfter = lines[end + 1];
    const blankBefore = lineBefore === undefined || isBlankLine(lineBefore.text);
    if (blankBefore && lineAfter !== undefined && isBlankLine(lineAfter.text)) end++;
    else if (start > 0 && blankBefore && end + 1 === lines.length) start--;
    lines.splice(start, end - start + 1);
  }
}

/** Insert a line before index `at`; a last line without a line ending gets one, and the new line takes its place as the unterminated one. */
function insertLine(lines: Line[], at: number, text: string, eol: string): void {
  const prev = lines[at - 1];
  let own = eol;
  if (prev !== undefined && prev.eol === '') {
    prev.eol = eol;
    own = '';
  }
  lines.splice(at, 0, { text, eol: own });
}

function keyLine(indent: string, key: string, written: string): string {
  return written === '' ? `${indent}${key} =` : `${indent}${key} = ${written}`;
}

/** Quote values the reader would otherwise trim or unquote. */
function formatValue(value: string): string {
  if (value === '') return '';
  const edge = /^[ \t]|[ \t]$/.test(value);
  const quoted = value.length >= 2 && value.startsWith('"') && value.endsWith('"');
  return edge || quoted ? `"${value}"` : value;
}

function isBlankLine(text: string): boolean {
  const scan = newLineScan();
  scanLine(text, 0, text.length, scan);
  return scan.kind === LINE_BLANK;
}

/** Refuse edits that cannot be written as one line that reads back the same. */
export function checkEdit(edit: SettingsEdit): void {
  const e = edit as Partial<Record<'op' | 'section' | 'key' | 'value', unknown>>;
  if (e.op !== 'set' && e.op !== 'remove-key' && e.op !== 'remove-section')
    invalid(`unknown settings edit operation ${JSON.stringify(e.op)}`);
  const section = typeof e.section === 'string' ? e.section.trim() : '';
  if (section === '' || /[\r\n\]]/.test(section) || section.startsWith('['))
    invalid(`invalid section name ${JSON.stringify(e.section)}`);
  if (e.op === 'remove-section') return;
  const key = typeof e.key === 'string' ? e.key.trim() : '';
  if (key === '' || /[\r\n=]/.test(key) || /^[;#[]/.test(key))
    invalid(`invalid key ${JSON.stringify(e.key)} in [${section}]`);
  if (e.op === 'remove-key') return;
  if (typeof e.value !== 'string') invalid(`value of ${key} in [${section}] must be a string`);
  if (/[\r\n]/.test(e.value)) invalid(`value of ${key} in [${section}] must not contain a line break`);
}

function invalid(message: string): never {
  throw new AgentError('AGENT_ERR_VALUE_INVALID', [message]);
}
