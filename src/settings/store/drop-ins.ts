/**
 * The drop-in folder of a settings file: `conf.d/` beside it (for the
 * package, `/etc/config-agent/conf.d/`), read as sshd reads
 * `sshd_config.d`. Every `*.ini` there (not hidden) is a layer above the
 * main file, in name order, a later file above an earlier one, so a
 * configuration tool or an import drops a file and the packaged file never
 * changes. The layers of a host, lowest first: the schemas' defaults, the
 * pulled settings, the main file (and what it includes), the drop-ins (and
 * what each includes). A folder that does not exist adds nothing; one that
 * cannot be read, or a drop-in that cannot be, is a problem like a missing
 * include. The folder is watched: a file dropped there applies by itself.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { problem, type SettingsProblem } from '../model/problem.js';
import type { SourceFile } from '../model/settings-tree.js';

/** What of the tree's reader (includes.ts SettingsReader) the drop-ins need. */
export interface DropInReader {
  folderFiles(folder: string, watched: Set<string>): Promise<{ files: string[] } | { error: string }>;
  source(file: string): Promise<SourceFile | { file: string; error: string }>;
}

/** The name of the drop-in folder beside a settings file. */
export const DROP_IN_FOLDER = 'conf.d';

/** The drop-in folder of the settings file `main`. */
export function dropInFolder(main: string): string {
  return join(dirname(main), DROP_IN_FOLDER);
}

/** The drop-ins of `main`, read, in precedence order (lowest first); problems for what cannot be read. */
export async function readDropIns(
  reader: DropInReader,
  main: string,
  watched: Set<string>,
  problems: SettingsProblem[],
): Promise<SourceFile[]> {
  const folder = dropInFolder(main);
  if (!existsSync(folder)) return [];
  const found = await reader.folderFiles(folder, watched);
  const at = { file: main, line: 0, col: 0, section: DROP_IN_FOLDER };
  if ('error' in found) {
    problems.push(problem('AGENT_ERR_INCLUDE_MISSING', [folder, found.error], at));
    return [];
  }
  const out: SourceFile[] = [];
  // Read together: a reload's reader settles the files it is asked for at once in one interval (read-settings.ts).
  const read = await Promise.all(found.files.map((file) => reader.source(file)));
  for (const src of read) {
    watched.add(src.file);
    if ('error' in src)
      problems.push(problem('AGENT_ERR_INCLUDE_MISSING', [src.file, src.error], { ...at, file: src.file }));
    else out.push(src);
  }
  return out;
}
