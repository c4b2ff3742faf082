/**
 * `[/includes]`: a settings file pulls in other INI files, as NSClient++ and
 * SNClient+ do, so one shared base serves a fleet of host files.
 *
 * - `name = path` includes one file; the path is relative to the including
 *   file's folder. A folder includes every `*.ini` in it, and a path whose
 *   last segment holds `*` or `?` includes every matching `.ini`, both in
 *   name order; a folder or pattern that matches nothing includes nothing.
 * - A path ending in `.cfg` (a file, or a `*.cfg` pattern) is an nrpe.cfg
 *   file or folder: its command lines are read at each load (nrpe-include.ts).
 * - Host placeholders work in include paths: `${hostname}` (the machine's
 *   name, or $AGENT_HOSTNAME), `${host}` (up to the first dot), `${domain}`
 *   (after it), each also as `_lc` / `_uc` (lower / upper case); `${env:NAME}`
 *   works too.
 * - Included files may include others. A missing file, an unreadable one or
 *   a cycle is an error at the include's line and column.
 * - An `https://` (or `http://`) value is a remote include: its last good
 *   pull in the state folder stands at its place (source-layer.ts). The
 *   source's pulled file includes files of its own repository only
 *   (pulled-includes.ts).
 * - Precedence: the including file overrides everything it includes; of two
 *   includes, the later one (in file order, then name order) overrides the
 *   earlier. Duplicates within one file stay errors (read-ini.ts). Drop-ins
 *   (`conf.d/*.ini`, drop-ins.ts) override the main file; the pulled
 *   settings (and what they include) are below everything.
 *
 * Every file is read and parsed at most once per SettingsReader, so a CLI run
 * over 10,000 host files that all include one base parses the base once.
 * The files of a tree are merged into one view by merge-sections.ts.
 */
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fsReason } from '../../errors.js';
import { wildcardPattern } from '../../formats/wildcard.js';
import { readRegularFileSync, SETTINGS_FILE_LIMIT } from '../../formats/regular-file.js';
import { parseIni } from '../ini/read-ini.js';
import { problem, type SettingsProblem } from '../model/problem.js';
import { expandVariables } from '../model/variables.js';
import { CheckCache } from '../model/check-cache.js';
import { hashBytes } from '../model/file-hash.js';
import { hostPlaceholders } from '../model/host-placeholders.js';
import { readDropIns } from './drop-ins.js';
import { isNrpeInclude, nrpeCfgDocument, nrpeIncludeFiles } from './nrpe-include.js';
import { isRemoteInclude, pulledProblems, remoteIncludeCache } from '../model/source-layer.js';
import { readSourcePull, type PulledPlace } from './pulled-includes.js';
import { INCLUDES_SECTION, type RemoteInclude, type SettingsTree, type SourceFile } from '../model/settings-tree.js';

export { hostPlaceholders };

/** Files may include files that include files… this deep at most (a chain deeper is an error, not a stack overflow). */
export const MAX_INCLUDE_DEPTH = 64;

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
  readonly hostVars: Readonly<Record<string, string>>;
  /** Where a pulled text given to source() is in its repository, before its description is written. */
  readonly locations = new Map<string, PulledPlace>();

  constructor(options: { read?: (file: string) => Promise<Buffer>; hostVars?: Readonly<Record<string, string>> } = {}) {
    // Synchronous by default: for thousands of small files one synchronous read costs a fraction of an async one.
    // Only a regular file of at most 16 MiB: opened without blocking, so a FIFO is refused, not waited for.
    this.read = options.read ?? (async (f) => readRegularFileSync(f, SETTINGS_FILE_LIMIT));
    this.hostVars = options.hostVars ?? hostPlaceholders();
  }

  /** Read one file (cached); `bytes`: its text as given (a pull not yet cached). */
  source(file: string, bytes?: Buffer): Promise<SourceFile | { file: string; error: string }> {
    const abs = resolve(file);
    let p = this.cache.get(abs);
    if (!p) {
      p = (bytes ? Promise.resolve(bytes) : this.read(abs)).then(
        (b) => {
          this.parsed++;
          const text = b.toString('utf8');
          return {
            file: abs,
            hash: hashBytes(b),
            doc: isNrpeInclude(abs) ? nrpeCfgDocument(text, abs) : parseIni(text, abs),
          };
        },
        (err: unknown) => ({ file: abs, error: fsReason(err) }),
      );
      this.cache.set(abs, p);
    }
    return p;
  }

  // long function: one walk of the tree sharing its visited set, its include stack and its problems
  /**
   * The tree of `main` (already read: `mainSource`): every included file,
   * recursively, in precedence order. Never throws; problems are listed.
   */
  async tree(mainSource: SourceFile): Promise<SettingsTree> {
    const sources = new Set<SourceFile>();
    const problems: SettingsProblem[] = [];
    const watched = new Set<string>([mainSource.file]);
    const remote = new Map<string, RemoteInclude>();
    /** A remote include: its cached pull at this place, or nothing (and a warning) before its first pull. */
    const includeRemote = async (url: string, at: Parameters<typeof problem>[2], secret: boolean): Promise<void> => {
      const cache = remoteIncludeCache(mainSource.file, mainSource.doc, url);
      remote.set(url, { url, cache, ...(secret ? { secret: true as const } : {}) });
      watched.add(cache);
      const pulled = await this.source(cache);
      if ('error' in pulled) return void problems.push(problem('AGENT_WARN_INCLUDE_NOT_PULLED', [url], at));
      problems.push(...pulledProblems(pulled.doc, pulled.file));
      sources.add(pulled);
    };
    const visit = async (src: SourceFile, stack: string[]): Promise<void> => {
      const section = src.doc.sections.find((s) => s.path.toLowerCase() === INCLUDES_SECTION);
      if (section && stack.length >= MAX_INCLUDE_DEPTH) {
        const e = section.entries[0];
        problems.push(
          problem(
            'AGENT_ERR_INCLUDE_DEPTH',
            [MAX_INCLUDE_DEPTH, [...stack.slice(0, 3), '…', src.file].map((f) => basename(f)).join(' -> ')],
            {
              file: src.file,
              line: e?.line ?? section.line,
              col: e?.valueCol ?? 1,
              section: INCLUDES_SECTION,
              key: e?.key ?? '',
            },
          ),
        );
      } else if (section) {
        // Every file this section names is read at once (concurrently; the reader batches them), then visited in order.
        for (const entry of section.entries) {
          const expanded = expandVariables(entry.value, this.hostVars, { dir: dirname(src.file) });
          if (expanded.problems.length === 0 && expanded.value.trim() !== '' && !isRemoteInclude(expanded.value)) {
            void this.expand(resolve(dirname(src.file), expanded.value), new Set()).then((found) => {
              if (!('error' in found)) for (const file of found.files) void this.source(file);
            });
          }
        }
        for (const entry of section.entries) {
          const at = {
            file: src.file,
            line: entry.line,
            col: entry.valueCol,
            section: INCLUDES_SECTION,
            key: entry.key,
          };
          const expanded = expandVariables(entry.value, this.hostVars, { dir: dirname(src.file) });
          if (expanded.problems.length > 0) {
            for (const p of expanded.problems)
              problems.push(problem(p.code, p.args, { ...at, col: entry.valueCol + p.offset }));
            continue;
          }
          if (expanded.value.trim() === '') {
            problems.push(problem('AGENT_ERR_INCLUDE_MISSING', [entry.value, 'the path is empty'], at));
            continue;
          }
          if (isRemoteInclude(expanded.value)) {
            await includeRemote(expanded.value.trim(), at, expanded.secret);
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
              problems.push(
                problem(
                  'AGENT_ERR_INCLUDE_CYCLE',
                  [[...stack, src.file, file].map((f) => basename(f)).join(' -> ')],
                  at,
                ),
              );
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
      sources.add(src);
    };
    // The drop-ins beside the main file (conf.d/*.ini, drop-ins.ts): above the main file, a later one above an earlier.
    const dropIns = await readDropIns(this, mainSource.file, watched, problems);
    // A pulled settings file ([/settings/source], in the main file or a drop-in), with what it includes: the lowest layer.
    const add = (s: SourceFile): void => void sources.add(s);
    const pull = { add, problems, watched, maxDepth: MAX_INCLUDE_DEPTH };
    const pulled = await readSourcePull(this, [mainSource, ...dropIns], pull);
    await visit(mainSource, []);
    for (const d of dropIns) await visit(d, [mainSource.file]);
    return {
      main: mainSource.file,
      sources: [...sources],
      problems,
      watched: [...watched],
      remote: [...remote.values()],
      pulled: [...pulled.files, ...[...remote.values()].map((r) => r.cache)],
      ...pulled.tree,
    };
  }

  /** The `.ini` files of a folder in name order ([] when it does not exist), the folder watched. */
  async folderFiles(folder: string, watched: Set<string>): Promise<{ files: string[] } | { error: string }> {
    return this.expand(folder, watched);
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
    if (/[*?]/.test(name) && isNrpeInclude(name)) return nrpeIncludeFiles(path);
    if (/[*?]/.test(name)) {
      const folder = dirname(path);
      const re = wildcardPattern(name);
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
