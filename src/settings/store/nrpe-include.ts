/**
 * An nrpe.cfg file named in `[/includes]` (a path ending in `.cfg`, or a
 * `DIR/*.cfg` pattern, which `settings import` writes for nrpe's include
 * and include_dir): read at each load of the settings, as nrpe reads it at
 * each of its loads. Its `command[name]=line` lines become entries of
 * `[/settings/external scripts/nrpe commands]`, at their file and line;
 * nrpe's other options there are not followed (the import carried them
 * over once, and says so). Lines are read as nrpe reads them
 * (import/nrpe-cfg-read.ts): blanks around `=` of a command allowed, the
 * later of two definitions wins, and a line nrpe refuses ends the file.
 * A `*.cfg` pattern walks the folder as nrpe's include_dir does (the
 * folders below it too, in name order).
 */
import { dirname } from 'node:path';
import { readCfgText, nrpeFolderFiles } from './nrpe-cfg-read.js';
import { wildcardPattern } from '../../formats/wildcard.js';
import type { IniDocument, IniEntry } from '../ini/read-ini.js';

export const NRPE_COMMANDS_SECTION = '/settings/external scripts/nrpe commands';

/** True when an include path is read as an nrpe.cfg file or folder. */
export function isNrpeInclude(path: string): boolean {
  return path.toLowerCase().endsWith('.cfg');
}

/** The text of an nrpe.cfg file as a settings document of its commands. */
export function nrpeCfgDocument(text: string, file: string): IniDocument {
  const entries = new Map<string, IniEntry>();
  let first = 0;
  for (const l of readCfgText(text, file)) {
    if (l.kind !== 'entry' || l.command === undefined) continue;
    first ||= l.line;
    const keyCol = l.text.indexOf(l.command) + 1;
    const value = l.value.trimStart();
    const valueCol = l.text.indexOf('=', keyCol) + 2 + (l.value.length - value.length);
    // INI keys are case-insensitive: the later definition wins, as in nrpe.
    entries.delete(l.command.toLowerCase());
    entries.set(l.command.toLowerCase(), { key: l.command, value, line: l.line, keyCol, valueCol });
  }
  const sections =
    entries.size === 0 ? [] : [{ path: NRPE_COMMANDS_SECTION, line: first, col: 1, entries: [...entries.values()] }];
  return { file, sections, problems: [] };
}

/** The files of a `DIR/*.cfg` pattern (any pattern of `.cfg` names), in nrpe's order. */
export function nrpeIncludeFiles(pattern: string): { files: string[]; folder: string } | { error: string } {
  const folder = dirname(pattern);
  const re = wildcardPattern(pattern.slice(folder.length + 1));
  const found = nrpeFolderFiles(folder);
  if ('error' in found) return found;
  return { files: found.files.filter((f) => re.test(f.slice(f.lastIndexOf('/') + 1))), folder };
}
