/**
 * The root of the repository or installed package: the nearest folder
 * holding a package.json above this code. Found by walking up, not by a
 * fixed `../..`, because the same code runs from two depths: compiled file
 * by file (dist/src/package-root.js) and bundled into one file
 * (dist/agent.js, `npm run build`). fileURLToPath, not URL.pathname: a
 * folder with a space or non-ASCII characters is percent-encoded in a URL.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/** Computed once, at load. */
export const PACKAGE_ROOT: string = findRoot(dirname(fileURLToPath(import.meta.url)));
