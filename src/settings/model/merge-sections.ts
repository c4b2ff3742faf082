/**
 * The merged view of a settings tree (includes.ts reads the tree): the
 * sections of every file as if one file held them all, the including file
 * winning over what it includes and a later include over an earlier one.
 */
import type { IniSection } from '../ini/read-ini.js';
import { INCLUDES_SECTION, type SourceFile } from './settings-tree.js';
import { inRange } from '../../in-range.js';

/** A section of the merged view and the file that writes it (its header; entries of merged sections carry their own file). */
export interface MergedSection {
  section: IniSection;
  file: string;
}

/**
 * Merge the sections of a tree into one list, as if one file held them all:
 * a key of a higher-precedence file replaces the same key of a lower one
 * (case-insensitively); new keys and sections are added. Every entry keeps
 * the file it was written in (`entry.file` in merged sections). The
 * `[/includes]` sections are left out. Pure: the documents are not changed;
 * a section that only one file writes is passed through as the same object,
 * so per-section results can be cached by identity.
 *
 * The merge of everything but the main file (the shared bases) is
 * remembered by the identity of those files, so a fleet run merges the
 * base once and then overlays each host file on it: the work per host is
 * its own sections plus one array copy. Callers must not change the result.
 */
export function mergeSections(sources: readonly SourceFile[]): readonly MergedSection[] {
  return mergeLayers(sources).list;
}

/**
 * {@link mergeSections}, with the merge of the files below the main file
 * (`below`, the same object for every tree over the same files): a section
 * of `list` at a position below `below.list.length` that is the same object
 * as there is unchanged by the main file; `find` looks a section up by path.
 */
export function mergeLayers(sources: readonly SourceFile[]): {
  list: readonly MergedSection[];
  below: readonly MergedSection[];
  find(path: string): MergedSection | undefined;
} {
  const prefix = sources.length > 1 ? mergeOf(sources.slice(0, -1)) : EMPTY_MERGE;
  const top = overlay(prefix, sources.slice(-1));
  return {
    list: top.list,
    below: prefix.list,
    find(path) {
      const lower = path.toLowerCase();
      const at = prefix.index.get(lower);
      if (at !== undefined) return top.list[at];
      return top.list.slice(prefix.list.length).find((m) => m.section.path.toLowerCase() === lower);
    },
  };
}

/** A merge result: the sections in order, and (for remembered prefixes) the position of each lower-cased path. */
interface Merge {
  list: readonly MergedSection[];
  index: ReadonlyMap<string, number>;
}

const EMPTY_MERGE: Merge = { list: [], index: new Map() };

/**
 * The first files of a tree are merged one at a time and each step is
 * remembered (by the merge below and the file's identity), so host files
 * that share their first includes share that work; files beyond these are
 * merged in one pass that copies nothing per file (a tree of 100,000
 * includes costs its entries, not their square, and no recursion).
 */
const CHAINED = 32;
const steps = new WeakMap<Merge, WeakMap<SourceFile, Merge>>();

/** The merge of `sources` (with its index). */
function mergeOf(sources: readonly SourceFile[]): Merge {
  let m = EMPTY_MERGE;
  const head = Math.min(sources.length, CHAINED);
  for (const src of sources.slice(0, head)) {
    let byFile = steps.get(m);
    let next = byFile?.get(src);
    if (!next) {
      next = overlay(m, [src]);
      if (!byFile) steps.set(m, (byFile = new WeakMap()));
      byFile.set(src, next);
    }
    m = next;
  }
  return head < sources.length ? overlay(m, sources.slice(head)) : m;
}

/** The sections of `sources`, in order, over those of `below` (which is left unchanged). */
function overlay(below: Merge, sources: readonly SourceFile[]): Merge {
  const list = below.list.slice();
  const index = new Map(below.index);
  // Sections copied in this pass (their entries are ours to change), with their keys' positions.
  const own = new Map<number, Map<string, number>>();
  for (const src of sources) {
    for (const s of src.doc.sections) {
      const lower = s.path.toLowerCase();
      if (lower === INCLUDES_SECTION) continue;
      const at = index.get(lower);
      if (at === undefined) {
        index.set(lower, list.length);
        list.push({ section: s, file: src.file });
        continue;
      }
      // A section written by a lower file too: a new merged copy (entries tagged with their file), then overlay.
      let keys = own.get(at);
      if (!keys) {
        const prev = inRange(list, at);
        const entries = prev.section.entries.map((e) => (e.file === undefined ? { ...e, file: prev.file } : e));
        keys = new Map(entries.map((e, i) => [e.key.toLowerCase(), i]));
        own.set(at, keys);
        list[at] = { section: { ...prev.section, entries }, file: prev.file };
      }
      const merged = inRange(list, at);
      const entries = merged.section.entries;
      for (const e of s.entries) {
        const tagged = { ...e, file: src.file };
        const i = keys.get(e.key.toLowerCase());
        if (i === undefined) {
          keys.set(e.key.toLowerCase(), entries.length);
          entries.push(tagged);
        } else {
          entries[i] = tagged;
        }
      }
      // The header of the highest-precedence file that writes the section.
      list[at] = { section: { ...merged.section, line: s.line, col: s.col, entries }, file: src.file };
    }
  }
  return { list, index };
}
