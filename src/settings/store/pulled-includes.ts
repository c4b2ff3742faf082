/**
 * `[/includes]` in pulled settings: the source's file may include files of
 * its own repository (a git source: paths at the same commit) or of its own
 * origin (an https source: paths on the same scheme, host and port), so a
 * fleet's `hosts/web01.ini` can include `../shared/base.ini` as it does in
 * a checkout. Never a file of this host's disk, never another server:
 * - a value is a relative path, resolved against the including file's place
 *   in the repository (its `location`, a path from the repository's root,
 *   or the URL's path from the origin's root);
 * - an absolute path, a URL, a drive letter or a `..` above the root is
 *   refused at the include's line (AGENT_ERR_SOURCE_INCLUDE);
 * - a folder (`dir/`) or a pattern in the last segment (`dir/*.ini`) only
 *   from git, whose commit the puller lists: it expands to the `.ini`
 *   files of the pull (PulledPlace.files) in that folder, in name order;
 *   over https (no listing) it is refused;
 * - host placeholders (`${host_lc}`…) work as in a local include.
 * The puller (settings/source/pulled-bundle.ts) reads each named file at
 * the same commit (or from the same origin) and keeps it in the state
 * folder at `settings-source/pulled-files/<path>`; the loader reads it from
 * there, below the file that includes it, all of it the lowest layer.
 */
import { posix, join, dirname, basename } from 'node:path';
import { readFileSync } from 'node:fs';
import type { IniDocument } from '../ini/read-ini.js';
import { problem, type SettingsProblem } from '../model/problem.js';
import { expandVariables } from '../model/variables.js';
import { wildcardPattern } from '../../formats/wildcard.js';
import { pulledProblems, sourceCacheFile, sourceUrl } from '../model/source-layer.js';

const INCLUDES = '/includes';
/** The folder beside the source's cached pull that holds the files it includes, at their paths in the repository. */
export const PULLED_FILES = 'pulled-files';

/** What an include names: one file, or (git) the `.ini` files of a folder matching a pattern. */
export type PulledTarget = { path: string } | { folder: string; pattern: string };

/** One include of a pulled file: what it names in the repository, or the problem at its line. */
export type PulledInclude =
  { target: PulledTarget; value: string; line: number; col: number; key: string } | { problem: SettingsProblem };

/**
 * Where a pulled file is in its repository; `files` (a git source, whose commit can be listed):
 * every file of the pull, so that a folder or pattern expands to what the puller fetched.
 */
export interface PulledPlace {
  location: string;
  files?: readonly string[] | undefined;
}

/** Where the files a cached pull includes are kept. */
export function pulledFilesRoot(cacheFile: string): string {
  return join(dirname(cacheFile), PULLED_FILES);
}

/** The description beside a cached text: `pulled.ini` -> `pulled.json` (a remote include's `<hash>.ini` -> `<hash>.json`). */
export function metaFile(cacheFile: string): string {
  return join(dirname(cacheFile), `${basename(cacheFile, '.ini')}.json`);
}

/** Where the cached pull `cacheFile` is in its repository, from its description (`location`, `kind`, `files`). */
export function cachedPlace(cacheFile: string): PulledPlace | undefined {
  try {
    const meta = JSON.parse(readFileSync(metaFile(cacheFile), 'utf8')) as {
      location?: unknown;
      kind?: unknown;
      files?: { path: string }[];
    };
    if (typeof meta.location !== 'string') return undefined;
    const files = meta.kind === 'git' ? (meta.files ?? []).map((f) => f.path) : undefined;
    return { location: meta.location, files };
  } catch {
    return undefined;
  }
}

/** The paths of `files` a folder-and-pattern target names: `.ini` files of that folder, in name order. */
export function matchingFiles(target: { folder: string; pattern: string }, files: readonly string[]): string[] {
  const re = wildcardPattern(target.pattern);
  return files
    .filter((p) => {
      const name = posix.basename(p);
      const dir = posix.dirname(p);
      return (
        (dir === '.' ? '' : dir) === target.folder && re.test(name) && /\.ini$/i.test(name) && !name.startsWith('.')
      );
    })
    .sort();
}

/**
 * What in the repository a pulled file at `location` names with `value`,
 * or why it may not: only a relative path that stays inside the
 * repository; a folder (`dir/`) or a pattern in the last segment
 * (`dir/*.ini`) only where the pull can be listed (`listable`: git).
 */
export function pulledIncludePath(location: string, value: string, listable = false): PulledTarget | { why: string } {
  const v = value.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(v)) return { why: 'a URL or drive letter; only a relative path is pulled' };
  if (v.startsWith('/') || v.startsWith('\\')) return { why: 'an absolute path; only a relative path is pulled' };
  if (v.includes('\\')) return { why: 'a backslash; paths in a repository use /' };
  const pattern = /[*?]/.test(v);
  if ((pattern || v.endsWith('/')) && !listable)
    return { why: `a ${pattern ? 'pattern' : 'folder'}; a file pulled over https includes files by name` };
  const [dirPart, last] = v.endsWith('/') ? [v, '*.ini'] : [posix.dirname(v), posix.basename(v)];
  if (/[*?]/.test(dirPart)) return { why: 'a pattern in a folder name; only the last segment may hold * or ?' };
  const path = posix.normalize(posix.join(posix.dirname(location), pattern || v.endsWith('/') ? dirPart : v));
  if (path === '..' || path.startsWith('../')) return { why: 'it leaves the repository (.. above its root)' };
  if (pattern || v.endsWith('/')) return { folder: path === '.' ? '' : path.replace(/\/$/, ''), pattern: last };
  if (path === '.' || path === '') return { why: 'it names the repository itself' };
  return { path };
}

/** The includes of a pulled file at `location` (its `[/includes]`, host placeholders expanded), each resolved or refused. */
export function pulledIncludes(
  doc: IniDocument,
  file: string,
  location: string,
  hostVars: Readonly<Record<string, string>>,
  listable = false,
): PulledInclude[] {
  const section = doc.sections.find((s) => s.path.toLowerCase() === INCLUDES);
  const out: PulledInclude[] = [];
  for (const e of section?.entries ?? []) {
    const at = { file, line: e.line, col: e.valueCol, section: INCLUDES, key: e.key };
    const expanded = expandVariables(e.value, hostVars);
    if (expanded.problems.length > 0) {
      for (const p of expanded.problems)
        out.push({ problem: problem(p.code, p.args, { ...at, col: at.col + p.offset }) });
      continue;
    }
    const got = pulledIncludePath(location, expanded.value, listable);
    if ('why' in got)
      out.push({ problem: problem('AGENT_ERR_SOURCE_INCLUDE', [location, e.line, e.value, got.why], at) });
    else out.push({ target: got, value: e.value, line: e.line, col: e.valueCol, key: e.key });
  }
  return out;
}

type Read = { file: string; hash: string; doc: IniDocument };

/** What the loader reads a file with, and where it puts what it found (settings/store/includes.ts). */
export interface PulledVisit {
  source(file: string): Promise<Read | { file: string; error: string }>;
  hostVars: Readonly<Record<string, string>>;
  maxDepth: number;
  add(src: Read): void;
  problems: SettingsProblem[];
  watched: Set<string>;
  /** The files of the pull that were read (never edited: settings/store/edit-tree.ts). */
  pulled: string[];
  /** Every file of a pull that can be listed (PulledPlace). */
  listed?: readonly string[] | undefined;
}

/**
 * The source's pulled file, when the main file or a drop-in (`docs`, the
 * main file first) names a source and a pull is cached: it and what it
 * includes, added lowest first; `files`: all of them (never edited), `tree`:
 * what the settings tree says of them (model/settings-tree.ts SettingsTree). `reader.locations` says where a pull given
 * to the reader before it is cached is in its repository.
 */
export async function readSourcePull(
  reader: Pick<PulledVisit, 'source' | 'hostVars'> & { locations: ReadonlyMap<string, PulledPlace> },
  docs: readonly Read[],
  o: Omit<PulledVisit, 'source' | 'hostVars' | 'pulled'>,
): Promise<{ files: string[]; tree: { sourcePull?: string; sourceIncludes?: string[] } }> {
  const [main] = docs;
  const none = { files: [], tree: {} };
  if (!main || !docs.some((d) => sourceUrl(d.doc, reader.hostVars) !== undefined)) return none;
  const cache = sourceCacheFile(main.file, main.doc);
  o.watched.add(cache);
  const pulled = await reader.source(cache);
  if ('error' in pulled) return none;
  o.problems.push(...pulledProblems(pulled.doc, pulled.file, true));
  const files: string[] = [];
  const place = reader.locations.get(pulled.file) ?? cachedPlace(pulled.file) ?? { location: '' };
  const v = { ...o, source: (f: string) => reader.source(f), hostVars: reader.hostVars, pulled: files };
  await visitPulled({ ...v, listed: place.files }, pulled, place.location, pulledFilesRoot(cache));
  const tree = { sourcePull: pulled.file, ...(files.length === 0 ? {} : { sourceIncludes: files }) };
  return { files: [pulled.file, ...files], tree };
}

/**
 * Visit the source's cached pull `src` (at `location`) and what it
 * includes, each included file before the file that includes it (lower
 * precedence), read from the cache folder. A file not there is an error
 * (the puller fetched every one before it wrote the cache).
 */
export async function visitPulled(
  v: PulledVisit,
  src: Read,
  location: string,
  root: string,
  stack: string[] = [],
): Promise<void> {
  for (const inc of pulledIncludes(src.doc, src.file, location, v.hostVars, v.listed !== undefined)) {
    if ('problem' in inc) {
      v.problems.push(inc.problem);
      continue;
    }
    const at = { file: src.file, line: inc.line, col: inc.col, section: INCLUDES, key: inc.key };
    if (stack.length + 1 >= v.maxDepth) {
      v.problems.push(problem('AGENT_ERR_INCLUDE_DEPTH', [v.maxDepth, [...stack, location].join(' -> ')], at));
      continue;
    }
    const paths = 'path' in inc.target ? [inc.target.path] : matchingFiles(inc.target, v.listed ?? []);
    for (const path of paths) {
      if (path === location || stack.includes(path)) {
        v.problems.push(problem('AGENT_ERR_INCLUDE_CYCLE', [[...stack, location, path].join(' -> ')], at));
        continue;
      }
      const file = join(root, ...path.split('/'));
      v.watched.add(file);
      const child = await v.source(file);
      if ('error' in child) {
        v.problems.push(problem('AGENT_ERR_INCLUDE_MISSING', [`${inc.value} (${path} of the pull)`, child.error], at));
        continue;
      }
      if (!v.pulled.includes(child.file)) v.pulled.push(child.file);
      await visitPulled(v, child, path, root, [...stack, location]);
    }
  }
  v.add(src);
}
