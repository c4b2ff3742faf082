/**
 * The merged view of a settings tree (includes.ts reads the tree): the
 * sections of every file as if one file held them all, the including file
 * winning over what it includes and a later include over an earlier one.
 */
import type { IniSection } from './read-ini.js';
import { INCLUDES_SECTION, type SourceFile } from './includes.js';

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
export function mergeLayers(sources: readonly SourceFile[]): { list: readonly MergedSection[]; below: readonly MergedSection[]; find(path: string): MergedSection | undefined } {
  const prefix = sources.length > 1 ? mergeOf(sources.slice(0, -1)) : EMPTY_MERGE;
  const top = overlay(prefix, sources[sources.length - 1], false);
  return {
    list: top.list,
    below: prefix.list,
    find(path) {
      const lower = path.toLowerCase();
      const at = prefix.index.get(lower);
      if (at !== undefined) return top.list[at];
      for (let i = prefix.list.length; i < top.list.length; i++) if ((top.list[i]).section.path.toLowerCase() === lower) return top.list[i];
      return undefined;
    },
  };
}

/** A merge result: the sections in order, and (for remembered prefixes) the position of each lower-cased path. */
interface Merge {
  list: readonly MergedSection[];
  index: ReadonlyMap<string, number>;
}

const EMPTY_MERGE: Merge = { list: [], index: new Map() };

/** Merges of source prefixes, by the prefix's last file (then the whole prefix compared by identity). */
const prefixMerges = new WeakMap<SourceFile, { prefix: readonly SourceFile[]; merge: Merge }[]>();

/** The merge of `sources` (with its index), remembered by the files' identity. */
function mergeOf(sources: readonly SourceFile[]): Merge {
  if (sources.length === 0) return EMPTY_MERGE;
  const last = sources[sources.length - 1];
  const known = prefixMerges.get(last) ?? [];
  const hit = known.find((k) => k.prefix.length === sources.length && k.prefix.every((s, i) => s === sources[i]));
  if (hit) return hit.merge;
  const merge = overlay(mergeOf(sources.slice(0, -1)), last, true);
  if (known.length < 16) {
    known.push({ prefix: sources, merge });
    prefixMerges.set(last, known);
  }
  return merge;
}

/** The sections of `src` over those of `below` (which is left unchanged). */
function overlay(below: Merge, src: SourceFile, needIndex: boolean): Merge {
  const list = below.list.slice();
  const added = new Map<string, number>();
  for (const s of src.doc.sections) {
    const lower = s.path.toLowerCase();
    if (lower === INCLUDES_SECTION) continue;
    const at = below.index.get(lower) ?? added.get(lower);
    if (at === undefined) {
      added.set(lower, list.length);
      list.push({ section: s, file: src.file });
      continue;
    }
    // A section written by a lower file too: a new merged copy (entries tagged with their file), then overlay.
    const prev = list[at];
    const entries = prev.section.entries.map((e) => (e.file === undefined ? { ...e, file: prev.file } : e));
    const keys = new Map(entries.map((e, i) => [e.key.toLowerCase(), i]));
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
    list[at] = { section: { ...prev.section, line: s.line, col: s.col, entries }, file: src.file };
  }
  if (!needIndex) return { list, index: EMPTY_MERGE.index };
  const index = new Map(below.index);
  for (const [k, v] of added) index.set(k, v);
  return { list, index };
}
