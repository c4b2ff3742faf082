/**
 * The minimal-edit settings writer: sets and removes keys and sections while
 * changing only the lines it must. Comments, order, blank lines, line
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
import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { chmod, chown, open, readFile, realpath, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { SettingsEdit } from '../core/control.js';
import { AgentError, errorMessage } from '../errors.js';
import { getLogger } from '../log.js';
import { removeLeftovers, tempPathFor, withFileLock } from './file-lock.js';
import { LINE_BLANK, LINE_ENTRY, LINE_INVALID, LINE_SECTION, newLineScan, scanLine } from './read-ini.js';

const log = getLogger('agent:settings:edit-ini');

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

/** sha256 (hex) of the bytes; a string counts as its UTF-8 bytes. */
export function hashText(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

export interface EditFileOptions {
  /** The hash the caller read; a different file on disk is AGENT_ERR_SETTINGS_CONFLICT (never retried). */
  expectedHash?: string;
  /**
   * Create the file when it does not exist (only when every edit is a `set`).
   * Default false: a missing file is AGENT_ERR_SETTINGS_NOT_FOUND, so a
   * mistyped path never becomes a new file holding one section.
   */
  create?: boolean;
  /** How long to wait for another process that is editing the same file, in ms (default 30 s). */
  lockTimeoutMs?: number;
  /** Test hook: runs after the temp file is written, before the conflict re-check and rename. */
  beforeRename?: () => Promise<void>;
}

/**
 * The edits, or a function that computes them from the file's current text
 * (for read-modify-write edits such as appending to a list: it runs under
 * the lock, on exactly the content being edited, and again on each retry).
 */
export type EditsOf = readonly SettingsEdit[] | ((currentText: string) => readonly SettingsEdit[]);

/** How often an edit is re-applied on top of a change made by a writer that does not take the lock (an editor, git). */
export const EDIT_ATTEMPTS = 5;

/**
 * Apply `edits` to the settings file atomically.
 *
 * Stable API (the CLI, the web API routes and the scripts module call it):
 * `editSettingsFile(file, edits, options)` resolves with the new hash and
 * whether anything changed; options may grow, never change meaning.
 *
 * Guarantees: the file is replaced by rename of a fully written and fsynced
 * temp file in the same folder (same mode, and owner when we may), so a
 * reader sees the old or the new file, never a mix; the original is untouched
 * on any failure and no temp file is left behind. Edits of one file are
 * serialized across processes by a lock file next to it (settings/file-lock.ts)
 * and within this process by a queue, so a call that resolves has its change
 * in the file: none is lost. A writer that ignores the lock (a text editor,
 * `git checkout`) is detected just before the rename; the edit is then
 * re-applied on the new content, up to EDIT_ATTEMPTS times. Temp files left
 * by a killed writer of the same file are removed. An edit that changes
 * nothing writes nothing (`changed: false`). A symlink is followed: its
 * target is replaced, the link stays. No message names a temp or lock file.
 *
 * Errors: AGENT_ERR_SETTINGS_NOT_FOUND when the file does not exist (unless
 * `create`); AGENT_ERR_SETTINGS_CONFLICT when the file's hash differs from
 * `expectedHash`, or when it kept changing under us through every attempt
 * (nothing written); AGENT_ERR_SETTINGS_LOCKED when another process held the
 * lock past `lockTimeoutMs`; AGENT_ERR_VALUE_INVALID for a bad edit;
 * AGENT_ERR_SETTINGS_UNREADABLE when the file cannot be read;
 * AGENT_ERR_SETTINGS_WRITE (with the cause) when writing fails or the file is
 * not UTF-8.
 */
export function editSettingsFile(file: string, edits: EditsOf, options: EditFileOptions = {}): Promise<{ hash: string; changed: boolean }> {
  if (typeof edits !== 'function') for (const edit of edits) checkEdit(edit);
  const transform = (text: string): string => applyEdits(text, typeof edits === 'function' ? edits(text) : edits);
  const mayCreate = typeof edits === 'function' || edits.every((e) => e.op === 'set');
  return queued(file, () => rewriteNow(file, transform, mayCreate, options));
}

/**
 * Replace the file's text by `transform(text)` with every guarantee of
 * editSettingsFile (lock, atomic rename, retries over writers that ignore
 * the lock, mode kept, nothing written when the text stays the same). For
 * whole-file rewrites that keep meaning, such as `agent settings fmt`.
 */
export function rewriteSettingsFile(file: string, transform: (text: string) => string, options: EditFileOptions = {}): Promise<{ hash: string; changed: boolean }> {
  return queued(file, () => rewriteNow(file, transform, true, options));
}

// ---------------------------------------------------------------------------
// Helpers: file

const queues = new Map<string, Promise<void>>();

function noop(): void {}

/** Calls for the same file in this process run one after the other. */
function queued<T>(file: string, run: () => Promise<T>): Promise<T> {
  const key = resolve(file);
  const previous = queues.get(key) ?? Promise.resolve();
  const result = previous.then(run);
  const tail = result.then(noop, noop);
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return result;
}

async function rewriteNow(file: string, transform: (text: string) => string, mayCreate: boolean, options: EditFileOptions): Promise<{ hash: string; changed: boolean }> {
  const target = await targetOf(file, mayCreate, options.create === true);
  return withFileLock(
    target,
    async () => {
      await removeLeftovers(target);
      for (let attempt = 1; ; attempt++) {
        const result = await rewriteOnce(file, target, transform, options);
        if (result !== 'conflict') return result;
        if (options.expectedHash !== undefined || attempt >= EDIT_ATTEMPTS) throw new AgentError('AGENT_ERR_SETTINGS_CONFLICT', [file]);
        log.debug(`${file} changed while we wrote it (attempt ${attempt}); re-applying the edit`);
      }
    },
    options.lockTimeoutMs !== undefined ? { timeoutMs: options.lockTimeoutMs } : {},
  );
}

/** One read-edit-write round; 'conflict' when another writer changed the file before our rename (nothing written). */
async function rewriteOnce(file: string, target: string, transform: (text: string) => string, options: EditFileOptions): Promise<{ hash: string; changed: boolean } | 'conflict'> {
  const current = await readCurrent(file, target, options.create === true);
  const hash = current.bytes === null ? hashText('') : hashText(current.bytes);
  if (options.expectedHash !== undefined && options.expectedHash !== hash) throw new AgentError('AGENT_ERR_SETTINGS_CONFLICT', [file]);
  const text = current.bytes === null ? '' : current.bytes.toString('utf8');
  const next = transform(text);
  if (current.bytes !== null && next === text) return { hash, changed: false };

  const temp = tempPathFor(target);
  try {
    await writeTemp(temp, next, current.mode, current.owner);
    if (options.beforeRename) await options.beforeRename();
    if (!(await unchangedSince(target, current.bytes))) {
      await unlink(temp).catch(noop);
      return 'conflict';
    }
    await rename(temp, target);
  } catch (err) {
    await unlink(temp).catch(noop);
    if (err instanceof AgentError) throw err;
    throw new AgentError('AGENT_ERR_SETTINGS_WRITE', [file, withoutPath(err, temp)], { cause: err });
  }
  await syncFolder(dirname(target));
  log.debug(`rewrote ${file}`);
  return { hash: hashText(next), changed: true };
}

/** The real path to replace (symlinks followed); a missing file only with `create` and set edits. */
async function targetOf(file: string, mayCreate: boolean, create: boolean): Promise<string> {
  try {
    return await realpath(file);
  } catch (err) {
    if (!isNotFound(err)) throw new AgentError('AGENT_ERR_SETTINGS_UNREADABLE', [file, errorMessage(err)], { cause: err });
    if (!create) throw new AgentError('AGENT_ERR_SETTINGS_NOT_FOUND', [file], { cause: err });
    if (!mayCreate) throw new AgentError('AGENT_ERR_SETTINGS_UNREADABLE', [file, 'the file does not exist']);
    return resolve(file);
  }
}

/**
 * An fs error's message without the path it names (a temp file's name
 * means nothing to the user): `EFBIG: file too large, write`.
 */
function withoutPath(err: unknown, temp: string): string {
  return errorMessage(err)
    .replace(/ '[^']*'( -> '[^']*')?/g, '')
    .split(temp)
    .join('a new copy');
}

interface Current {
  /** The real path to replace (symlinks followed). */
  target: string;
  /** null: the file does not exist yet. */
  bytes: Buffer | null;
  /** Permission bits to keep; null for a new file (the umask decides). */
  mode: number | null;
  owner: { uid: number; gid: number } | null;
}

async function readCurrent(file: string, target: string, create: boolean): Promise<Current> {
  try {
    const [bytes, info] = await Promise.all([readFile(target), stat(target)]);
    if (!isUtf8(bytes)) throw new AgentError('AGENT_ERR_SETTINGS_WRITE', [file, 'the file is not valid UTF-8; refusing to rewrite it']);
    return { target, bytes, mode: info.mode & 0o7777, owner: { uid: info.uid, gid: info.gid } };
  } catch (err) {
    if (err instanceof AgentError) throw err;
    if (isNotFound(err) && create) return { target, bytes: null, mode: null, owner: null };
    if (isNotFound(err)) throw new AgentError('AGENT_ERR_SETTINGS_NOT_FOUND', [file], { cause: err });
    throw new AgentError('AGENT_ERR_SETTINGS_UNREADABLE', [file, errorMessage(err)], { cause: err });
  }
}

/** Write, fsync and close the temp file with the original's mode (and owner when running as root). */
async function writeTemp(temp: string, text: string, mode: number | null, owner: Current['owner']): Promise<void> {
  const handle = await open(temp, 'wx', mode ?? 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  if (mode !== null) await chmod(temp, mode); // open() applied the umask
  if (owner !== null && process.getuid?.() === 0) await chown(temp, owner.uid, owner.gid);
}

/** True when the target still holds `bytes` (or still does not exist, for null). */
async function unchangedSince(target: string, bytes: Buffer | null): Promise<boolean> {
  try {
    const now = await readFile(target);
    return bytes !== null && now.equals(bytes);
  } catch (err) {
    if (isNotFound(err)) return bytes === null;
    throw err;
  }
}

/** Make the rename durable. Some platforms cannot fsync a folder; the rename is done either way. */
async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (err) {
    log.debug(`cannot fsync folder ${folder}: ${errorMessage(err)}`);
  }
}

function isNotFound(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

// ---------------------------------------------------------------------------
// Helpers: text

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
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i]!.text;
    scanLine(t, 0, t.length, scan);
    if (scan.kind === LINE_SECTION) {
      const lower = t.slice(scan.nameStart, scan.nameEnd).toLowerCase();
      current = lower === wanted ? { lower, header: i, keys: [] } : undefined;
      if (current) blocks.push(current);
    } else if (scan.kind === LINE_INVALID && t.charCodeAt(scan.first) === 91) {
      current = undefined; // a broken `[header`: the reader drops its keys, so do we
    } else if (scan.kind === LINE_ENTRY && current) {
      current.keys.push({ index: i, lower: t.slice(scan.nameStart, scan.nameEnd).toLowerCase(), eq: scan.eq, rawStart: scan.rawStart, rawEnd: scan.rawEnd });
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
  const hit = blocks.flatMap((b) => b.keys).filter((k) => k.lower === lower).pop();
  if (hit !== undefined) {
    const line = lines[hit.index]!;
    if (written === '') line.text = line.text.slice(0, hit.eq + 1);
    else {
      const before = line.text.slice(0, hit.rawStart);
      const gap = hit.rawStart === hit.rawEnd && !/[ \t]$/.test(before) ? ' ' : '';
      line.text = before + gap + written + line.text.slice(hit.rawEnd);
    }
    return;
  }
  const first = blocks[0]!;
  const after = first.keys.length > 0 ? first.keys[first.keys.length - 1]!.index : first.header;
  const indent = first.keys.length > 0 ? /^[ \t]*/.exec(lines[after]!.text)![0] : '';
  insertLine(lines, after + 1, keyLine(indent, key, written), eol);
}

function removeKey(lines: Line[], section: string, key: string): void {
  const lower = key.toLowerCase();
  const doomed = blocksOf(lines, section).flatMap((b) => b.keys).filter((k) => k.lower === lower).map((k) => k.index);
  for (let i = doomed.length - 1; i >= 0; i--) lines.splice(doomed[i]!, 1);
}

function removeSection(lines: Line[], section: string): void {
  const blocks = blocksOf(lines, section);
  for (let b = blocks.length - 1; b >= 0; b--) {
    const block = blocks[b]!;
    let start = block.header;
    let end = block.keys.length > 0 ? block.keys[block.keys.length - 1]!.index : block.header; // inclusive
    const blankBefore = start === 0 || isBlankLine(lines[start - 1]!.text);
    if (blankBefore && end + 1 < lines.length && isBlankLine(lines[end + 1]!.text)) end++;
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
function checkEdit(edit: SettingsEdit): void {
  const e = edit as Partial<Record<'op' | 'section' | 'key' | 'value', unknown>>;
  if (e.op !== 'set' && e.op !== 'remove-key' && e.op !== 'remove-section') invalid(`unknown settings edit operation ${JSON.stringify(e.op)}`);
  const section = typeof e.section === 'string' ? e.section.trim() : '';
  if (section === '' || /[\r\n\]]/.test(section) || section.startsWith('[')) invalid(`invalid section name ${JSON.stringify(e.section)}`);
  if (e.op === 'remove-section') return;
  const key = typeof e.key === 'string' ? e.key.trim() : '';
  if (key === '' || /[\r\n=]/.test(key) || /^[;#[]/.test(key)) invalid(`invalid key ${JSON.stringify(e.key)} in [${section}]`);
  if (e.op === 'remove-key') return;
  if (typeof e.value !== 'string') invalid(`value of ${key} in [${section}] must be a string`);
  if (/[\r\n]/.test(e.value as string)) invalid(`value of ${key} in [${section}] must not contain a line break`);
}

function invalid(message: string): never {
  throw new AgentError('AGENT_ERR_VALUE_INVALID', [message]);
}
