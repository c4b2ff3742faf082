/**
 * The minimal-edit settings writer: the public entry for edits of a settings
 * file. The text edits themselves (what changes, what stays, quoting) are in
 * settings/ini/ini-text-edit.ts; the atomic, checked write in
 * settings/store/atomic-rewrite.ts.
 */
import type { SettingsEdit } from '../ini/ini-text-edit.js';
import { rewriteChecked, type EditFileOptions } from './atomic-rewrite.js';
import { applyEdits, checkEdit } from '../ini/ini-text-edit.js';

export { applyEdits } from '../ini/ini-text-edit.js';
export { hashText, type EditFileOptions } from './atomic-rewrite.js';

/**
 * The edits, or a function that computes them from the file's current text
 * (for read-modify-write edits such as appending to a list: it runs on
 * exactly the content being replaced, and again on each retry).
 */
export type EditsOf = readonly SettingsEdit[] | ((currentText: string) => readonly SettingsEdit[]);

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
 * on any failure and no temp file is left behind. The new copy takes the
 * file's place only while the file still is the one read
 * (settings/store/checked-replace.ts), and one that wrote to the copy the
 * replace took out is put back just after it (replaced-copy.ts); otherwise
 * the edit is read again and re-applied on the new content, after a short
 * random wait, for up to `retryForMs` (30 s). That covers every other
 * writer: edits in other processes (the CLI, several `config-agent web
 * add-user` at once), a text editor, `git checkout`; edits of this process
 * are also queued one after the other. So a call that resolves has its
 * change in the file: none is lost. Temp files left by a killed writer of
 * the same file are removed. An edit that changes nothing writes nothing
 * (`changed: false`). A symlink is followed: its target is replaced, the
 * link stays. No message names a temp file.
 *
 * Errors: AGENT_ERR_SETTINGS_NOT_FOUND when the file does not exist (unless
 * `create`); AGENT_ERR_SETTINGS_CONFLICT when the file's hash differs from
 * `expectedHash` (not retried), or when it kept changing under us for
 * `retryForMs` (nothing written); AGENT_ERR_VALUE_INVALID for a bad edit;
 * AGENT_ERR_SETTINGS_UNREADABLE when the file cannot be read;
 * AGENT_ERR_SETTINGS_WRITE (with the cause) when writing fails or the file is
 * not UTF-8.
 */
export function editSettingsFile(
  file: string,
  edits: EditsOf,
  options: EditFileOptions = {},
): Promise<{ hash: string; changed: boolean }> {
  if (typeof edits !== 'function') for (const edit of edits) checkEdit(edit);
  const transform = (text: string): string => applyEdits(text, typeof edits === 'function' ? edits(text) : edits);
  const mayCreate = typeof edits === 'function' || edits.every((e) => e.op === 'set');
  return rewriteChecked(file, transform, mayCreate, options);
}

/**
 * Replace the file's text by `transform(text)` with every guarantee of
 * editSettingsFile (atomic, checked replace, retries over other writers,
 * mode kept, nothing written when the text stays the same). For
 * whole-file rewrites that keep meaning, such as `config-agent settings fmt`.
 */
export function rewriteSettingsFile(
  file: string,
  transform: (text: string) => string,
  options: EditFileOptions = {},
): Promise<{ hash: string; changed: boolean }> {
  return rewriteChecked(file, transform, true, options);
}

// ---------------------------------------------------------------------------
// Helpers: file
