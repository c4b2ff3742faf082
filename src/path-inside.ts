/**
 * "Is this path inside that folder": the one answer for the whole agent
 * (allowed paths, the script root, the web UI's files, paths shown relative
 * to a folder). Both paths are resolved (`.` and `..` segments, repeated and
 * trailing separators) and compared by whole segments, so `/srv/app2` is not
 * inside `/srv/app` and a file named `..notes` inside a folder is inside it.
 * Symbolic links are not followed: callers that must resolve them pass real
 * paths.
 */
import { isAbsolute, relative, sep } from 'node:path';

/** `path` relative to `folder` when it is inside it (`''` for the folder itself); undefined when outside. */
export function relativeInside(folder: string, path: string): string | undefined {
  const rel = relative(folder, path);
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel;
}

/** True when `path` is inside `folder`, or is `folder` itself unless `strictly`. */
export function isInside(folder: string, path: string, strictly = false): boolean {
  const rel = relativeInside(folder, path);
  return rel !== undefined && (!strictly || rel !== '');
}
