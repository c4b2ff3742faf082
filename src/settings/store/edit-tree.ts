/**
 * Edits of a settings file that includes others (`[/includes]`): each edit
 * goes to the file that holds what it changes, through the minimal-edit
 * writer (edit-ini.ts: atomic, locked, comments and order kept).
 *
 * Routing (sections and keys match case-insensitively):
 * - `set` changes the key in the file whose value is in force (the
 *   highest-precedence file that writes it); a key written nowhere goes to
 *   the main file.
 * - `remove-key` removes the key from the file whose value is in force; a
 *   value in a file that one includes then shows through.
 * - `remove-section` removes the section from every file of the tree that
 *   writes it.
 * A file without includes is a tree of one file: everything goes to it.
 * The drop-ins of `conf.d/` (drop-ins.ts) are files of the tree like the
 * includes: a key a drop-in holds is changed there. Pulled text (the
 * source's cache, the remote includes' caches) is never written: the edit
 * goes to the main file, where it overrides the pulled value.
 *
 * Stable API for the CLI and the web API routes: `editSettings(main, edits,
 * options)` resolves with one entry per file written or left unchanged, so
 * callers can say which file they wrote.
 */
import type { SettingsEdit } from '../ini/ini-text-edit.js';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { AgentError, errorMessage } from '../../errors.js';
import { applyEdits, editSettingsFile, hashText, type EditFileOptions } from './edit-ini.js';
import { SettingsReader } from './includes.js';
import type { SourceFile } from '../model/settings-tree.js';
import { mergeSections } from '../model/merge-sections.js';
import { parseIni, type IniSection } from '../ini/read-ini.js';

/** Read access to the merged settings (raw values as written), for edits computed from the current content. */
export interface SettingsView {
  /** The value in force of `key` in `section`, as written; undefined when no file writes it. */
  get(section: string, key: string): string | undefined;
  /** Every key of `section` as written, with its value in force. */
  keys(section: string): ReadonlyMap<string, string>;
  /** Every section of every file of the tree as written (lowest precedence first, the main file last), `[/includes]` too. */
  sections(): readonly IniSection[];
}

/** The edits, or a function that computes them from the current content (it runs under the writer's lock, again on each retry). */
export type TreeEdits = readonly SettingsEdit[] | ((view: SettingsView) => readonly SettingsEdit[]);

export interface TreeEditOptions {
  /** Create the main file when it does not exist (see EditFileOptions.create). */
  create?: boolean;
  /** Hashes of the files as the caller validated them; a file that differs is AGENT_ERR_SETTINGS_CONFLICT (nothing more written). */
  expected?: readonly { file: string; hash: string }[];
  /** How long an edit that keeps finding a file changed by another writer tries again, in ms (default 30 s). */
  retryForMs?: number;
  /**
   * Called before anything is written, with the text of every file the
   * edits would change (absolute path -> new text); throw to refuse the edit
   * (nothing written). The files are written only over the content checked:
   * one that changes meanwhile is AGENT_ERR_SETTINGS_CONFLICT (files written
   * before it stay written).
   */
  check?: (planned: ReadonlyMap<string, string>) => void | Promise<void>;
}

export interface FileEditResult {
  file: string;
  hash: string;
  changed: boolean;
}

/**
 * Apply `edits` to the tree of `main`, each in the file that holds it (see
 * the module comment). Errors are those of editSettingsFile; an include
 * that cannot be read does not stop edits of the files that can.
 */
export async function editSettings(
  main: string,
  edits: TreeEdits,
  options: TreeEditOptions = {},
): Promise<FileEditResult[]> {
  const abs = resolve(main);
  const reader = new SettingsReader();
  const root = await reader.source(abs);
  const tree = 'error' in root ? undefined : await reader.tree(root);
  const sources: SourceFile[] = tree?.sources ?? [];
  // Pulled text (the source's cache, remote includes) is never written: an edit goes to a local file.
  const pulled = new Set(tree?.pulled ?? []);
  const route = (from: readonly SourceFile[], list: readonly SettingsEdit[]): ReturnType<typeof routeEdits> =>
    routeEdits(
      from.filter((s) => !pulled.has(s.file)),
      list,
      abs,
    );
  if (sources.length === 0) {
    // No main file yet (editSettingsFile refuses it unless create): everything goes to it.
    const list =
      typeof edits === 'function'
        ? (text: string) => edits(viewOf([{ file: abs, hash: '', doc: parseIni(text, abs) }]))
        : edits;
    return [{ file: abs, ...(await editSettingsFile(abs, list, fileOptions(abs, options))) }];
  }
  const initial = typeof edits === 'function' ? edits(viewOf(sources)) : edits;
  const routed = route(sources, initial);
  const targets = [...new Set(routed.map((r) => r.file))];
  const checked = new Map<string, string>();
  if (options.check) {
    const planned = new Map<string, string>();
    for (const file of targets) {
      const src = sources.find((s) => s.file === file) as SourceFile;
      const expected = options.expected?.find((e) => resolve(e.file) === file)?.hash;
      const bytes = await readFile(file).catch((err: unknown) => {
        throw new AgentError('AGENT_ERR_SETTINGS_UNREADABLE', [file, errorMessage(err)]);
      });
      const hash = hashText(bytes);
      if (hash !== src.hash || (expected !== undefined && expected !== hash))
        throw new AgentError('AGENT_ERR_SETTINGS_CONFLICT', [file]);
      checked.set(file, hash);
      const text = bytes.toString('utf8');
      const next = applyEdits(
        text,
        routed.filter((r) => r.file === file).map((r) => r.edit),
      );
      if (next !== text) planned.set(file, next);
    }
    await options.check(planned);
  }
  const results: FileEditResult[] = [];
  for (const file of targets) {
    const forFile = (text: string): readonly SettingsEdit[] => {
      // This file's current text (read under its lock) replaces the version read above.
      const now = sources.map((s) => (s.file === file ? { ...s, doc: parseIni(text, file) } : s));
      const list = typeof edits === 'function' ? edits(viewOf(now)) : edits;
      return route(now, list)
        .filter((r) => r.file === file)
        .map((r) => r.edit);
    };
    const hash = checked.get(file);
    results.push({
      file,
      ...(await editSettingsFile(file, forFile, {
        ...fileOptions(file, options),
        ...(hash !== undefined ? { expectedHash: hash } : {}),
      })),
    });
  }
  return results;
}

/** The merged view of the tree of `main` as it is now (an empty view when the file does not exist). */
export async function readSettingsView(main: string): Promise<SettingsView> {
  const reader = new SettingsReader();
  const root = await reader.source(resolve(main));
  return viewOf('error' in root ? [] : (await reader.tree(root)).sources);
}

/** Files of the result that changed, for messages ("written to …"). */
export function changedFiles(results: readonly FileEditResult[]): string[] {
  return results.filter((r) => r.changed).map((r) => r.file);
}

// ---------------------------------------------------------------------------
// Helpers

function fileOptions(file: string, options: TreeEditOptions): EditFileOptions {
  const expected = options.expected?.find((e) => resolve(e.file) === file)?.hash;
  return {
    ...(options.create ? { create: true } : {}),
    ...(expected !== undefined ? { expectedHash: expected } : {}),
    ...(options.retryForMs !== undefined ? { retryForMs: options.retryForMs } : {}),
  };
}

/** An edit as a caller outside the type system may send it (an API body): an object with a section name. */
function looksLikeEdit(edit: unknown): boolean {
  return typeof edit === 'object' && edit !== null && typeof (edit as { section?: unknown }).section === 'string';
}

/** Each edit with the file it goes to (remove-section: one entry per file that writes the section). */
function routeEdits(
  sources: readonly SourceFile[],
  edits: readonly SettingsEdit[],
  mainFile: string,
): { file: string; edit: SettingsEdit }[] {
  // A new key goes to the main file; the drop-ins above it (conf.d) only take the keys they hold.
  const main = sources.find((s) => s.file === mainFile) ?? sources.at(-1);
  if (main === undefined) throw new Error('no settings file to edit');
  const out: { file: string; edit: SettingsEdit }[] = [];
  for (const edit of edits) {
    if (!looksLikeEdit(edit)) throw new AgentError('AGENT_ERR_VALUE_INVALID', ['invalid settings edit']);
    const section = edit.section.trim().toLowerCase();
    if (edit.op === 'remove-section') {
      const holders = sources.filter((s) => s.doc.sections.some((x) => x.path.toLowerCase() === section));
      for (const h of holders.length > 0 ? holders : [main]) out.push({ file: h.file, edit });
      continue;
    }
    const key = typeof edit.key === 'string' ? edit.key.trim().toLowerCase() : '';
    let holder = main;
    for (const s of sources) {
      if (
        s.doc.sections.some(
          (x) => x.path.toLowerCase() === section && x.entries.some((e) => e.key.toLowerCase() === key),
        )
      )
        holder = s;
    }
    out.push({ file: holder.file, edit });
  }
  return out;
}

function viewOf(sources: readonly SourceFile[]): SettingsView {
  const merged = mergeSections(sources);
  const keys = (section: string): Map<string, string> => {
    const s = merged.find((m) => m.section.path.toLowerCase() === section.toLowerCase());
    return new Map((s?.section.entries ?? []).map((e) => [e.key, e.value]));
  };
  return {
    keys,
    sections: () => sources.flatMap((s) => s.doc.sections),
    get(section, key) {
      const lower = key.toLowerCase();
      for (const [k, v] of keys(section)) if (k.toLowerCase() === lower) return v;
      return undefined;
    },
  };
}
