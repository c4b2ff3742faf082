/**
 * Absolute paths of the agent's machine kept out of messages that leave it
 * (HTTP error answers, settings problems and log entries served by the API,
 * script failures in query results): an attacker who can read a message
 * must not learn the layout of the machine (home folders, user names, where
 * the agent is installed).
 *
 * Contract of `hidePaths(text, base)`: a path under `base` (the settings
 * folder) becomes the path relative to it (`scripts/check.sh`,
 * `agent.ini`); any other absolute path whose first segment is an entry of
 * the machine's root folder (`/tmp/…`, `/home/…`, `/etc/…`) becomes its
 * bare file name. Text that only looks like a path (`[/settings/WEB/server]`,
 * `/api/v1/queries`, a URL) is kept, since its first segment is no entry of
 * `/` or it is not preceded by a space, quote, `(` or `=`. Never throws.
 */
import { readdirSync } from 'node:fs';
import { basename, isAbsolute } from 'node:path';
import { relativeInside } from './path-inside.js';

/** An absolute path token: after start, space, quote, `(` or `=`; up to a space, quote, `)`, `:`, `,` or `;`. */
const ABSOLUTE = /(^|[\s"'(=])(\/[^\s"'`()<>[\]{},;:]+)/g;

let roots: Set<string> | undefined;

/** `text` with absolute paths of this machine shown relative to `base`, or as bare file names (see the file's contract). */
export function hidePaths(text: string, base?: string): string {
  if (!text.includes('/')) return text;
  const dir = base !== undefined && isAbsolute(base) ? base.replace(/\/+$/, '') : undefined;
  return text.replace(ABSOLUTE, (whole, before: string, path: string) => {
    const rel = dir !== undefined && dir !== '' ? relativeInside(dir, path) : undefined;
    if (rel !== undefined) return `${before}${rel || '.'}`;
    const first = path.split('/')[1] ?? '';
    if (first === '' || !rootEntries().has(first)) return whole;
    return `${before}${basename(path)}`;
  });
}

/** Entries of the root folder, read once (a path whose first segment is one of them is a path of this machine). */
function rootEntries(): Set<string> {
  if (roots === undefined) {
    try {
      roots = new Set(readdirSync('/'));
    } catch {
      roots = new Set([
        'bin',
        'boot',
        'dev',
        'etc',
        'home',
        'lib',
        'media',
        'mnt',
        'opt',
        'proc',
        'root',
        'run',
        'sbin',
        'srv',
        'sys',
        'tmp',
        'usr',
        'var',
      ]);
    }
  }
  return roots;
}
