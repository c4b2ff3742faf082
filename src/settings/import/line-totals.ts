/**
 * The import report's totals: every line read falls in exactly one of
 * kept, changed, dropped, or blank or comment. A line reported several
 * times counts once, by its final fate (dropped over changed over kept).
 */
import type { ImportChange, LineCount } from './translation.js';

export type { LineCount } from './translation.js';

export interface LineTotals {
  files: number;
  lines: number;
  kept: number;
  changed: number;
  dropped: number;
  blank: number;
  /** Lines with a setting that no change accounts for: 0 unless the translation has a defect. */
  unaccounted: number;
}

const RANK: Readonly<Record<string, number>> = { kept: 1, note: 0, renamed: 2, moved: 2, changed: 2, dropped: 3 };

export function lineTotals(
  counted: readonly LineCount[],
  changes: readonly ImportChange[],
  sourceFile: string,
): LineTotals {
  // The highest rank of each line, by file, then by line number (no string key per line: an import may read a million lines).
  const fate = new Map<string, Uint8Array>();
  const lastLine = new Map<string, number>();
  for (const c of counted) lastLine.set(c.file, Math.max(lastLine.get(c.file) ?? 0, c.line));
  for (const c of changes) {
    const file = c.file ?? sourceFile;
    const rank = RANK[c.action] ?? 0;
    let ranks = fate.get(file);
    if (ranks === undefined || c.line >= ranks.length) {
      const grown = new Uint8Array(Math.max(c.line, lastLine.get(file) ?? 0) + 1);
      if (ranks !== undefined) grown.set(ranks);
      fate.set(file, (ranks = grown));
    }
    if (rank > (ranks[c.line] ?? 0)) ranks[c.line] = rank;
  }
  const t: LineTotals = {
    files: lastLine.size,
    lines: counted.length,
    kept: 0,
    changed: 0,
    dropped: 0,
    blank: 0,
    unaccounted: 0,
  };
  for (const c of counted) {
    if (!c.setting) {
      t.blank++;
      continue;
    }
    const rank = fate.get(c.file)?.[c.line] ?? 0;
    if (rank === 3) t.dropped++;
    else if (rank === 2) t.changed++;
    else if (rank === 1) t.kept++;
    else t.unaccounted++;
  }
  return t;
}
