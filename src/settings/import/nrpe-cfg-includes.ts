/**
 * nrpe.cfg's `include=` and `include_dir=` in an import: nrpe reads them at
 * each of its loads, so the import does not copy their commands once but
 * names them in `[/includes]`, and the agent reads their `command[…]` lines
 * at each of its loads too (settings/store/nrpe-include.ts). An include_dir
 * becomes `DIR/*.cfg` (with nrpe's walk of the folders below it), an
 * include of a `.cfg` file that file. An include of a file not named
 * `*.cfg`, one that cannot be read now, or any include of a file that sets
 * command_prefix, is not followed at load: its lines are imported in place.
 */
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { CfgLine, CfgRead } from '../store/nrpe-cfg-read.js';

export interface FollowedIncludes {
  /** `[/includes]` entries: key and absolute path (pattern), in nrpe's read order. */
  entries: { key: string; value: string; line: CfgLine }[];
  /** The files whose command lines the agent reads at each load (their commands are not written). */
  files: Set<string>;
}

export function followedIncludes(read: CfgRead): FollowedIncludes {
  const entries: FollowedIncludes['entries'] = [];
  const files = new Set<string>();
  const keys = new Set<string>();
  // command_prefix goes in front of every command: commands read at load would miss it, so they are inlined.
  if (read.lines.some((l) => l.kind === 'entry' && l.name === 'command_prefix')) return { entries, files };
  const missing = new Set(read.missing.map((m) => `${m.file}\n${m.line}`));
  const byFile = new Map<string, CfgLine[]>();
  for (const l of read.lines) byFile.set(resolve(l.file), []);
  for (const l of read.lines) {
    if (l.kind !== 'entry' || !['include', 'include_file', 'include_dir'].includes(l.name)) continue;
    if (missing.has(`${l.file}\n${l.line}`)) continue;
    const target = resolve(isAbsolute(l.value) ? l.value : join(dirname(l.file), l.value));
    const dir = l.name === 'include_dir';
    if (!dir && !target.endsWith('.cfg')) continue;
    const value = dir ? join(target.replace(/\/$/, ''), '*.cfg') : target;
    let key = `nrpe ${basename(dir ? target.replace(/\/$/, '') : target)}`;
    for (let n = 2; keys.has(key.toLowerCase()); n++) key = `nrpe ${basename(target)} ${n}`;
    keys.add(key.toLowerCase());
    entries.push({ key, value, line: l });
    for (const f of byFile.keys()) if (dir ? f.startsWith(`${target.replace(/\/$/, '')}/`) : f === target) files.add(f);
  }
  return { entries, files };
}
