/**
 * A reload's read of the settings tree: the main file once complete
 * (`replaced`: the watcher saw it replaced by rename, so it is read at
 * once; otherwise once settled, stable-read.ts), included files once
 * settled, then loaded and validated. A main file that cannot be read is a
 * failed load with one problem (AGENT_ERR_SETTINGS_UNREADABLE) and no hash.
 */
import { fsReason } from '../errors.js';
import { SettingsReader } from '../settings/includes.js';
import { loadSettingsFile, type LoadResult } from '../settings/load.js';
import type { SettingsProblem } from '../settings/problem.js';
import { readReplaced, readStable } from './stable-read.js';
import type { RenameWitness } from './watcher.js';

export async function readSettingsTree(file: string, replaced: boolean, untouched?: RenameWitness): Promise<LoadResult> {
  let bytes: Buffer;
  try {
    bytes = replaced ? await readReplaced(file, untouched) : await readStable(file);
  } catch (err) {
    const problem: SettingsProblem = { code: 'AGENT_ERR_SETTINGS_UNREADABLE', severity: 'error', message: `cannot read settings file ${file}: ${fsReason(err)}`, file, line: 0, col: 0 };
    return { ok: false, problems: [problem], warnings: [], hash: '', watched: [] };
  }
  // Each reload reads the tree afresh.
  return loadSettingsFile(file, { bytes, reader: new SettingsReader({ read: (f) => readStable(f) }) });
}

/** The warnings of `after` that `before` did not have: each warning is logged once, a reload that keeps it says nothing new. */
export function newWarnings(before: readonly SettingsProblem[], after: readonly SettingsProblem[]): SettingsProblem[] {
  const seen = new Set(before.map(warningKey));
  return after.filter((w) => !seen.has(warningKey(w)));
}

function warningKey(p: SettingsProblem): string {
  return `${p.code}|${p.section ?? ''}|${p.key ?? ''}|${p.message}`;
}
