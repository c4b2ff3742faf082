/**
 * `[/includes]`: a settings file pulls in other INI files, as NSClient++ and
 * SNClient+ do, so one shared base serves a fleet of host files.
 *
 * - `name = path` includes one file; the path is relative to the including
 *   file's folder. A folder includes every `*.ini` in it, and a path whose
 *   last segment holds `*` or `?` includes every matching `.ini`, both in
 *   name order; a folder or pattern that matches nothing includes nothing.
 * - Host placeholders work in include paths: `${hostname}` (the machine's
 *   name, or $AGENT_HOSTNAME), `${host}` (up to the first dot), `${domain}`
 *   (after it), each also as `_lc` / `_uc` (lower / upper case); `${env:NAME}`
 *   works too.
 * - Included files may include others. A missing file, an unreadable one or
 *   a cycle is an error at the include's line and column.
 * - Precedence: the including file overrides everything it includes; of two
 *   includes, the later one (in file order, then name order) overrides the
 *   earlier. Duplicates within one file stay errors (read-ini.ts).
 *
 * Every file is read and parsed at most once per SettingsReader, so a CLI run
 * over 10,000 host files that all include one base parses the base once.
 */
import { readFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { hostname as osHostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { errorMessage } from '../errors.js';
import { parseIni, type IniDocument, type IniSection } from './read-ini.js';
import { problem, type SettingsProblem } from './problem.js';
import { expandVariables } from './variables.js';
import { CheckCache } from './check-cache.js';
import { hashBytes } from './file-hash.js';

export const INCLUDES_SECTION = '/includes';

/** One file as read: its bytes' hash and the parsed document, or why it could not be read. */
export interface SourceFile {
  file: string;
  hash: string;
  doc: IniDocument;
}

/** The files of one settings tree, in precedence order (lowest first; the main file is last). */
export interface SettingsTree {
  main: string;
  /** Every file of the tree, lowest precedence first, the main file last. */
  sources: SourceFile[];
  /** Include problems (missing file, cycle, bad placeholder) and read problems of included files. */
  problems: SettingsProblem[];
  /** Files and folders that could change the tree (for the watcher): every file read plus the folders of patterns. */
  watched: string[];
}

/**
 * Reads settings files with a per-reader cache: every path is read and
 * parsed at most once per reader. The CLI keeps one reader for a whole run;
 * each reload of the agent uses a fresh one (files change between reloads).
 */
export class SettingsReader {
  private readonly cache = new Map<string, Promise<SourceFile | { file: string; error: string }>>();
  /** How many files this reader has parsed (each at most once). */
  parsed = 0;
  /** Check results per parsed section, shared by every load of this reader. */
  readonly checks = new CheckCache();
  private readonly read: (file: string) => Promise<Buffer>;
  private readonly hostVars: Readonly<Record<string, string>>;

  constructor(options: { read?: (file: string) => Promise<Buffer>; hostVars?: Readonly<Record<string, string>> } = {}) {
    // Synchronous by default: for thousands of small files one readFileSync costs a fraction of an async readFile.
    this.read = options.read ?? (async (f) => readFileSync(f));
    this.hostVars = options.hostVars ?? hostPlaceholders();
  }

  /** Read one file (cached). */
  source(file: string, bytes?: Buffer): Promise<SourceFile | { file: string; error: string }> {
    const abs = resolve(file);
    let p = this.cache.get(abs);
    if (!p) {
      p = (bytes ? Promise.resolve(bytes) : this.read(abs)).then(
        (b) => {
          this.parsed++;
          return { file: abs, hash: hashBytes(b), doc: parseIni(b.toString('utf8'), abs) };
        },
        (err: unknown) => ({ file: abs, error: fsReason(err) }),
      );
      this.cache.set(abs, p);
    }
    return p;
  }

  /**
   * The tree of `main` (already read: `mainSource`): every included file,
   * recursively, in precedence order. Never throws; problems are listed.
   */
  async tree(mainSource: SourceFile): Promise<SettingsTree> {
    const sources: SourceFile[] = [];
    const problems: SettingsProblem[] = [];
    const watched = new Set<string>([mainSource.file]);
    const visit = async (src: SourceFile, stack: string[]): Promise<void> => {
      const section = src.doc.sections.find((s) => s.path.toLowerCase() === INCLUDES_SECTION);
      if (section) {
        for (const entry of section.entries) {
          const at = { file: src.file, line: entry.line, col: entry.valueCol, section: INCLUDES_SECTION, key: entry.key };
          const expanded = expandVariables(entry.value, this.hostVars, { dir: dirname(src.file) });
          if (expanded.problems.length > 0) {
            for (const p of expanded.problems) problems.push(problem(p.code, p.args, { ...at, col: entry.valueCol + p.offset }));
            continue;
          }
          if (expanded.value.trim() === '') {
            problems.push(problem('AGENT_ERR_INCLUDE_MISSING', [entry.value, 'the path is empty'], at));
            continue;
          }
          const found = await this.expand(resolve(dirname(src.file), expanded.value), watched);
          if ('error' in found) {
            problems.push(problem('AGENT_ERR_INCLUDE_MISSING', [expanded.value, found.error], at));
            continue;
          }
          for (const file of found.files) {
            watched.add(file);
            if (file === src.file || stack.includes(file)) {
              problems.push(problem('AGENT_ERR_INCLUDE_CYCLE', [[...stack, src.file, file].map((f) => basename(f)).join(' -> ')], at));
              continue;
            }
            const child = await this.source(file);
            if ('error' in child) {
              problems.push(problem('AGENT_ERR_INCLUDE_MISSING', [expanded.value, child.error], at));
              continue;
            }
            await visit(child, [...stack, src.file]);
          }
        }
      }
      // A file reached twice (two hosts' includes of one base, or a diamond) counts once, at its first place.
      if (!sources.includes(src)) sources.push(src);
    };
    await visit(mainSource, []);
    return { main: mainSource.file, sources, problems, watched: [...watched] };
  }

  /** A file, a folder (its *.ini) or a pattern in the last segment (matching .ini files), as a sorted list. */
  private readonly expanded = new Map<string, Promise<{ files: string[]; folder?: string } | { error: string }>>();

  /** {@link expandUncached}, once per path and reader. */
  private async expand(path: string, watched: Set<string>): Promise<{ files: string[] } | { error: string }> {
    let p = this.expanded.get(path);
    if (!p) this.expanded.set(path, (p = this.expandUncached(path)));
    const r = await p;
    if ('folder' in r && r.folder !== undefined) watched.add(r.folder);
    return r;
  }

  private async expandUncached(path: string): Promise<{ files: string[]; folder?: string } | { error: string }> {
    const name = basename(path);
    if (/[*?]/.test(name)) {
      const folder = dirname(path);
      const re = globToRegExp(name);
      try {
        const names = (await readdir(folder)).filter((n) => re.test(n) && n.toLowerCase().endsWith('.ini')).sort();
        return { files: names.map((n) => join(folder, n)), folder };
      } catch (err) {
        return { error: fsReason(err) };
      }
    }
    try {
      const info = await stat(path);
      if (!info.isDirectory()) return { files: [path] };
      const names = (await readdir(path)).filter((n) => n.toLowerCase().endsWith('.ini') && !n.startsWith('.')).sort();
      return { files: names.map((n) => join(path, n)), folder: path };
    } catch (err) {
      return { error: fsReason(err) };
    }
  }
}

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

/** The host placeholders of include paths, from $AGENT_HOSTNAME or the machine's name. */
export function hostPlaceholders(name = process.env.AGENT_HOSTNAME || osHostname()): Record<string, string> {
  const dot = name.indexOf('.');
  const host = dot < 0 ? name : name.slice(0, dot);
  const domain = dot < 0 ? '' : name.slice(dot + 1);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries({ hostname: name, host, domain })) {
    out[k] = v;
    out[`${k}_lc`] = v.toLowerCase();
    out[`${k}_uc`] = v.toUpperCase();
  }
  return out;
}

/** One hash for a tree: the main file's own hash when it includes nothing, else a hash over every file's path and hash. */
export function treeHash(sources: readonly SourceFile[]): string {
  if (sources.length === 1) return (sources[0]).hash;
  const h = createHash('sha256');
  for (const s of sources) h.update(`${s.file}\0${s.hash}\n`);
  return h.digest('hex');
}


/** Why a file could not be read, without repeating its path: `no such file`, `permission denied`, … */
function fsReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file or folder';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a folder';
  return errorMessage(err).replace(/, \w+ '[^']*'$/, '');
}

function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}
