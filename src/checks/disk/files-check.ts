/**
 * check_files: the files under one or more folders whose names match a
 * pattern, with size and age. The walk is bounded in depth and in the
 * number of entries, so a huge tree answers with an error, not a hang.
 */
import { lstat, readdir, realpath } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { linearGlob, type TextPattern } from '../../formats/linear-pattern.js';
import { ArgumentError, numberArgument } from '../arguments.js';
import type { CheckDefinition } from '../engine.js';
import { isAllowed, missingPath, resolveAllowed } from '../logfile/log-paths.js';

const MAX_ENTRIES = 100_000;

/**
 * `allowedPaths`: `[/settings/disk] allowed paths` in force. A folder is
 * listed only when its real path lies under one of them; one outside is
 * refused with the same answer whether it exists or not.
 */
export function filesCheck(allowedPaths: () => readonly string[] = () => []): CheckDefinition {
  return {
    name: 'check_files',
    title: 'Files',
    description: 'Files under folders matching a pattern: how many, their size and age.',
    options: {
      path: { description: 'A folder to look in; may be repeated (at least one is needed).', repeat: true },
      pattern: { description: 'Glob the file name must match, such as *.log.', default: '*' },
      'max-depth': { description: 'How deep to descend below each folder (1 = the folder only).', default: '1' },
    },
    vars: {
      name: { kind: 'string', description: 'File name.' },
      path: { kind: 'string', description: 'Full path.' },
      relative: { kind: 'string', description: 'Path relative to the folder given with path=.' },
      size: { kind: 'size', description: 'Size in bytes.' },
      age: { kind: 'time', description: 'Seconds since the last write (age > 1h).' },
      written: { kind: 'date', description: 'Time of the last write (written < -1h: more than an hour ago).' },
    },
    defaults: {
      topSyntax: '%(status): %(problem_count)/%(count) files (%(problem_list))',
      okSyntax: '%(status): All %(count) files are ok',
      detailSyntax: '%(name): %(size)',
      emptySyntax: '%(status): No files found',
      emptyState: 'unknown',
    },
    async collect(args, call) {
      const roots = args.all('path').filter((p) => p.trim() !== '');
      if (roots.length === 0) throw new ArgumentError('check_files needs path=FOLDER');
      const allowed = await resolveAllowed(allowedPaths());
      for (const root of roots) {
        const real = (await realpath(root).catch(() => undefined)) ?? (await missingPath(root));
        if (!isAllowed(real, allowed))
          throw new ArgumentError(
            `${root} is not under an allowed path (${allowedPaths().join(', ') || 'none'}); see [/settings/disk] allowed paths`,
          );
      }
      const pattern = args.get('pattern') ?? '*';
      // Compiled once per query, not per file, and run on the linear-time engine (a request's pattern).
      let glob: TextPattern;
      try {
        glob = linearGlob(pattern, { dot: true });
      } catch (err) {
        throw new ArgumentError(`pattern=${pattern}: ${(err as Error).message}`);
      }
      const matches = (name: string): boolean => glob.test(name);
      const depth = numberArgument(args, 'max-depth', 1, { min: 1, max: 64 });
      const items: Record<string, string | number>[] = [];
      let seen = 0;
      for (const root of roots) {
        const walk = async (dir: string, level: number): Promise<void> => {
          const entries = await readdir(dir, { withFileTypes: true });
          for (const e of entries) {
            if (++seen > MAX_ENTRIES)
              throw new Error(`more than ${MAX_ENTRIES} entries under ${roots.join(', ')}; narrow path= or max-depth=`);
            const full = join(dir, e.name);
            if (e.isDirectory()) {
              if (level < depth) await walk(full, level + 1);
              continue;
            }
            if (!e.isFile() || !matches(e.name)) continue;
            const st = await lstat(full).catch(() => undefined);
            if (!st) continue;
            const written = st.mtimeMs / 1000;
            items.push({
              name: e.name,
              path: full,
              relative: relative(root, full),
              size: st.size,
              written,
              age: Math.max(0, call.now - written),
            });
          }
        };
        await walk(root, 1);
      }
      return items;
    },
    summaryPerf: [{ object: 'count', key: 'count', alias: 'count', minimum: 0 }],
  };
}
