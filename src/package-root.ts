/**
 * The root of the repository or installed package: the nearest folder
 * holding a package.json above this code. Found by walking up, not by a
 * fixed `../..`, because the same code runs from two depths: compiled file
 * by file (dist/src/package-root.js) and bundled into one file
 * (dist/agent/main.cjs, `npm run build`, where `import.meta.dirname` is the
 * bundle's folder). The folder as a path, not a URL: no URL is made at start
 * (issue 41), and a folder with a space or non-ASCII characters needs no decoding.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/** Computed once, at load. */
export const PACKAGE_ROOT: string = findRoot(import.meta.dirname);
