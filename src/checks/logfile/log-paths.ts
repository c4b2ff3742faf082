/**
 * Which files a check_logfile call may read: its `file=`/`files=` paths
 * and globs (`*`, `?`, `[..]`, `**`) expanded, every match resolved to its
 * real path (symlinks followed) and kept only when it lies under one of the
 * allowed folders (`[/settings/logfile] allowed paths`, `/var/log` by
 * default). A glob is walked only from its fixed leading folder, and only
 * when that folder is itself allowed, so a pattern never makes the agent
 * walk outside the allowed folders; the walk is bounded in depth and
 * entries.
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { isInside } from '../../path-inside.js';
import { linearGlob, type TextPattern } from '../../formats/linear-pattern.js';

const GLOB_CHARS = /[*?[\]{}]/;
const MAX_DEPTH = 8;
const MAX_ENTRIES = 20000;

export class LogPathError extends Error {}

/** Real paths of the allowed folders; folders that do not exist are dropped. */
export async function resolveAllowed(list: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of list) {
    const real = await realpath(p).catch(() => undefined);
    if (real !== undefined) out.push(real);
  }
  return out;
}

/** Where a path that does not exist would be: the real path of its deepest existing folder, plus the rest. */
export async function missingPath(path: string): Promise<string> {
  let dir = resolve(path);
  const rest: string[] = [];
  while (dirname(dir) !== dir) {
    rest.unshift(basename(dir));
    dir = dirname(dir);
    const real = await realpath(dir).catch(() => undefined);
    if (real !== undefined) return join(real, ...rest);
  }
  return resolve(path);
}

export function isAllowed(real: string, allowed: readonly string[]): boolean {
  return allowed.some((a) => isInside(a, real));
}

/**
 * Expand one pattern to the real paths of regular files it names. Throws
 * LogPathError for a relative pattern, a file outside the allowed folders,
 * or a glob whose folder is not allowed. A pattern that names nothing
 * answers an empty list.
 */
export async function expandLogPattern(
  pattern: string,
  allowed: readonly string[],
  allowedText: string,
): Promise<string[]> {
  if (!isAbsolute(pattern)) throw new LogPathError(`file=${pattern} is not an absolute path`);
  const refused = (p: string): LogPathError =>
    new LogPathError(`${p} is not under an allowed path (${allowedText}); see [/settings/logfile] allowed paths`);
  // A path outside the allowed folders is refused whether it exists or not: the answer never
  // tells a peer which files exist where it may not read.
  if (!GLOB_CHARS.test(pattern)) {
    const real = await realpath(pattern).catch(() => undefined);
    if (real === undefined) {
      if (!isAllowed(await missingPath(pattern), allowed)) throw refused(pattern);
      return [];
    }
    if (!isAllowed(real, allowed)) throw refused(pattern);
    const st = await stat(real);
    if (!st.isFile()) throw new LogPathError(`${pattern} is not a regular file`);
    return [real];
  }
  const parts = pattern.split('/');
  const firstGlob = parts.findIndex((p) => GLOB_CHARS.test(p));
  const base = parts.slice(0, firstGlob).join('/') || '/';
  const realBase = await realpath(base).catch(() => undefined);
  if (realBase === undefined) {
    if (!isAllowed(await missingPath(base), allowed)) throw refused(base);
    return [];
  }
  if (!isAllowed(realBase, allowed)) throw refused(base);
  // Match against the pattern rewritten onto the real base folder.
  const rest = parts.slice(firstGlob).join('/');
  let glob: TextPattern;
  try {
    glob = linearGlob(join(realBase, rest), { dot: false });
  } catch (err) {
    throw new LogPathError(`file=${pattern}: ${(err as Error).message}`);
  }
  const matcher = (path: string): boolean => glob.test(path);
  const found: string[] = [];
  let seen = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH || seen > MAX_ENTRIES) return;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (++seen > MAX_ENTRIES) return;
      const full = join(dir, e.name);
      if (e.isDirectory()) await walk(full, depth + 1);
      else if ((e.isFile() || e.isSymbolicLink()) && matcher(full)) {
        const real = await realpath(full).catch(() => undefined);
        if (real === undefined || !isAllowed(real, allowed)) continue;
        const st = await stat(real).catch(() => undefined);
        if (st?.isFile()) found.push(real);
      }
    }
  };
  await walk(realBase, 0);
  return [...new Set(found)].sort();
}
