/**
 * Script names that the API may use, and the one place that decides
 * whether a path stays inside the script root. A name is relative, made of
 * segments of `[A-Za-z0-9._-]` separated by `/` (or `\`, read as `/`); `.`,
 * `..`, empty segments, absolute paths and drive letters are refused. The
 * resolved path (following symlinks of whatever part exists, dangling ones
 * through their link text) must lie strictly inside the root.
 */
import { lstat, readlink, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, parse, relative, resolve, sep } from 'node:path';
import { isInside } from '../../path-inside.js';

const SEGMENT = /^[A-Za-z0-9._-]+$/;

/** Why a name is refused, or undefined when it is acceptable. */
export function scriptNameProblem(name: string): string | undefined {
  if (name === '') return 'the name is empty';
  if (/^[A-Za-z]:/.test(name)) return 'drive letters are not allowed';
  const normal = name.replace(/\\/g, '/');
  if (normal.startsWith('/')) return 'absolute paths are not allowed';
  if (normal.endsWith('/')) return 'a trailing separator is not allowed';
  for (const seg of normal.split('/')) {
    if (seg === '') return 'empty path segments are not allowed';
    if (seg === '.' || seg === '..') return `'${seg}' is not allowed`;
    if (!SEGMENT.test(seg)) return `'${seg}' holds characters other than letters, digits, '.', '_' and '-'`;
  }
  return undefined;
}

export class OutsideRootError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutsideRootError';
  }
}

/**
 * The absolute path of `name` under `root`. Throws OutsideRootError when the
 * name is refused or the path (symlinks resolved) leaves the root.
 */
export async function pathUnderRoot(root: string, name: string): Promise<string> {
  const problem = scriptNameProblem(name);
  if (problem) throw new OutsideRootError(`Invalid script name: ${problem}`);
  const absRoot = resolve(root);
  const target = resolve(absRoot, name.replace(/\\/g, '/'));
  if (!inside(absRoot, target)) throw new OutsideRootError(`Not allowed outside: ${absRoot}`);
  const realRoot = await realpath(absRoot).catch(() => absRoot);
  const realTarget = await realExisting(target);
  if (!inside(realRoot, realTarget)) throw new OutsideRootError(`Not allowed outside: ${absRoot}`);
  return target;
}

/** Path relative to the root, with `/` separators. */
export function relativeToRoot(root: string, path: string): string {
  return relative(resolve(root), path).split(sep).join('/');
}

function inside(root: string, path: string): boolean {
  return isInside(root, path, true);
}

/**
 * The path with every symlink resolved, segment by segment, as realpath
 * would — except that a missing segment ends the walk (the rest is appended
 * as written). A dangling symlink is still followed through its link text, so
 * a link to a file that does not exist yet resolves to where a write would
 * land. Throws OutsideRootError beyond 40 link hops.
 */
async function realExisting(path: string): Promise<string> {
  const abs = resolve(path);
  let current = parse(abs).root;
  let pending = segments(abs.slice(current.length));
  for (let hops = 0, steps = 0; pending.length > 0 && steps < 4096; steps++) {
    const seg = pending.shift() as string;
    if (seg === '.') continue;
    if (seg === '..') {
      current = dirname(current);
      continue;
    }
    const next = join(current, seg);
    const st = await lstat(next).catch(() => undefined);
    if (!st) return resolve(next, ...pending);
    if (!st.isSymbolicLink()) {
      current = next;
      continue;
    }
    if (++hops > 40) throw new OutsideRootError(`Invalid script name: too many symbolic links at ${next}`);
    const link = await readlink(next);
    if (isAbsolute(link)) current = parse(link).root;
    pending = [...segments(isAbsolute(link) ? link.slice(current.length) : link), ...pending];
  }
  return resolve(current, ...pending);
}

/** Path segments as written (`.` and `..` kept), empty ones dropped. */
function segments(path: string): string[] {
  return path.split(sep === '\\' ? /[\\/]/ : /\//).filter((s) => s !== '');
}
