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
 *   refused at the include's line (AGENT_ERR_SOURCE_INCLUDE), as is a folder
 *   or a pattern (a pulled include names one file);
 * - host placeholders (`${host_lc}`…) work as in a local include.
 * The puller (reconciler/source/pulled-bundle.ts) reads each named file at
 * the same commit (or from the same origin) and keeps it in the state
 * folder at `settings-source/pulled-files/<path>`; the loader reads it from
 * there, below the file that includes it, all of it the lowest layer.
 */
import { posix, join, dirname, basename } from 'node:path';
import { readFileSync } from 'node:fs';
import type { IniDocument } from './read-ini.js';
import { problem, type SettingsProblem } from './problem.js';
import { expandVariables } from './variables.js';
import { pulledProblems, sourceCacheFile, sourceUrl } from './source-layer.js';

const INCLUDES = '/includes';
/** The folder beside the source's cached pull that holds the files it includes, at their paths in the repository. */
export const PULLED_FILES = 'pulled-files';

/** One include of a pulled file: the file's path in the repository, or the problem at its line. */
export type PulledInclude =
  { path: string; value: string; line: number; col: number; key: string } | { problem: SettingsProblem };

/** Where the files a cached pull includes are kept. */
export function pulledFilesRoot(cacheFile: string): string {
  return join(dirname(cacheFile), PULLED_FILES);
}

/** The description beside a cached text: `pulled.ini` -> `pulled.json` (a remote include's `<hash>.ini` -> `<hash>.json`). */
export function metaFile(cacheFile: string): string {
  return join(dirname(cacheFile), `${basename(cacheFile, '.ini')}.json`);
}

/** Where the cached pull `cacheFile` is in its repository (its `location` in the description), or undefined. */
export function cachedLocation(cacheFile: string): string | undefined {
  try {
    const meta = JSON.parse(readFileSync(metaFile(cacheFile), 'utf8')) as { location?: unknown };
    return typeof meta.location === 'string' ? meta.location : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The path in the repository a pulled file at `location` names with
 * `value`, or why it may not: only a relative path that stays inside the
 * repository, naming one file.
 */
export function pulledIncludePath(location: string, value: string): { path: string } | { why: string } {
  const v = value.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(v)) return { why: 'a URL or drive letter; only a relative path is pulled' };
  if (v.startsWith('/') || v.startsWith('\\')) return { why: 'an absolute path; only a relative path is pulled' };
  if (v.includes('\\')) return { why: 'a backslash; paths in a repository use /' };
  if (/[*?]/.test(v)) return { why: 'a pattern; a pulled include names one file' };
  if (v.endsWith('/')) return { why: 'a folder; a pulled include names one file' };
  const path = posix.normalize(posix.join(posix.dirname(location), v));
  if (path === '..' || path.startsWith('../')) return { why: 'it leaves the repository (.. above its root)' };
  if (path === '.' || path === '') return { why: 'it names the repository itself' };
  return { path };
}

/** The includes of a pulled file at `location` (its `[/includes]`, host placeholders expanded), each resolved or refused. */
export function pulledIncludes(
  doc: IniDocument,
  file: string,
  location: string,
  hostVars: Readonly<Record<string, string>>,
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
    const got = pulledIncludePath(location, expanded.value);
    if ('why' in got)
      out.push({ problem: problem('AGENT_ERR_SOURCE_INCLUDE', [location, e.line, e.value, got.why], at) });
    else out.push({ path: got.path, value: e.value, line: e.line, col: e.valueCol, key: e.key });
  }
  return out;
}

type Read = { file: string; hash: string; doc: IniDocument };

/** What the loader reads a file with, and where it puts what it found (settings/includes.ts). */
export interface PulledVisit {
  source(file: string): Promise<Read | { file: string; error: string }>;
  hostVars: Readonly<Record<string, string>>;
  maxDepth: number;
  add(src: Read): void;
  problems: SettingsProblem[];
  watched: Set<string>;
  /** The files of the pull that were read (never edited: settings/edit-tree.ts). */
  pulled: string[];
}

/**
 * The source's pulled file, when the main file or a drop-in (`docs`, the
 * main file first) names a source and a pull is cached: it and what it
 * includes, added lowest first; `files`: all of them (never edited), `tree`:
 * what the settings tree says of them (includes.ts SettingsTree). `reader.locations` says where a pull given
 * to the reader before it is cached is in its repository.
 */
export async function readSourcePull(
  reader: Pick<PulledVisit, 'source' | 'hostVars'> & { locations: ReadonlyMap<string, string> },
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
  const location = reader.locations.get(pulled.file) ?? cachedLocation(pulled.file) ?? '';
  const v = { ...o, source: (f: string) => reader.source(f), hostVars: reader.hostVars, pulled: files };
  await visitPulled(v, pulled, location, pulledFilesRoot(cache));
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
  for (const inc of pulledIncludes(src.doc, src.file, location, v.hostVars)) {
    if ('problem' in inc) {
      v.problems.push(inc.problem);
      continue;
    }
    const at = { file: src.file, line: inc.line, col: inc.col, section: INCLUDES, key: inc.key };
    if (stack.length + 1 >= v.maxDepth) {
      v.problems.push(problem('AGENT_ERR_INCLUDE_DEPTH', [v.maxDepth, [...stack, location].join(' -> ')], at));
      continue;
    }
    if (inc.path === location || stack.includes(inc.path)) {
      v.problems.push(problem('AGENT_ERR_INCLUDE_CYCLE', [[...stack, location, inc.path].join(' -> ')], at));
      continue;
    }
    const file = join(root, ...inc.path.split('/'));
    v.watched.add(file);
    const child = await v.source(file);
    if ('error' in child) {
      v.problems.push(
        problem('AGENT_ERR_INCLUDE_MISSING', [`${inc.value} (${inc.path} of the pull)`, child.error], at),
      );
      continue;
    }
    if (!v.pulled.includes(child.file)) v.pulled.push(child.file);
    await visitPulled(v, child, inc.path, root, [...stack, location]);
  }
  v.add(src);
}
