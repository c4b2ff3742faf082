/**
 * Reading an nsclient.ini for the import: sections with their entries and
 * the comments above each, every physical line counted (for the report's
 * totals), and the lines the file itself makes void, each with the reason.
 * Those are a key written twice in a section (NSClient++ keeps the last
 * one), a key above the first section, and a line that is neither a
 * section, a key, a comment nor blank. One pass, with maps, so a file of a
 * million lines reads in linear time.
 */
import { LINE_BLANK, LINE_COMMENT, LINE_ENTRY, LINE_SECTION, newLineScan, scanLine } from '../ini/ini-line-scan.js';
import type { LineCount } from './line-totals.js';
import { inRange } from '../../in-range.js';

export interface SourceEntry {
  key: string;
  value: string;
  line: number;
  comments: string[];
}

export interface SourceSection {
  path: string;
  line: number;
  comments: string[];
  entries: SourceEntry[];
}

export interface VoidLine {
  action: 'dropped' | 'moved';
  line: number;
  section: string;
  key?: string;
  detail: string;
}

export interface Source {
  header: string[];
  sections: SourceSection[];
  voided: VoidLine[];
  counted: LineCount[];
}

export function readSource(text: string, file: string): Source {
  const scan = newLineScan();
  const sections: SourceSection[] = [];
  const byPath = new Map<string, SourceSection>();
  const keysOf = new Map<SourceSection, Map<string, number>>();
  const header: string[] = [];
  const voided: VoidLine[] = [];
  const counted: LineCount[] = [];
  let pending: string[] = [];
  let current: SourceSection | undefined;
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  lines.forEach((raw, i) => {
    scanLine(raw, 0, raw.length, scan);
    const line = i + 1;
    counted.push({ file, line, setting: scan.kind !== LINE_BLANK && scan.kind !== LINE_COMMENT });
    // Comments above the first section and cut off from it by a blank line describe the file.
    if (scan.kind === LINE_BLANK && !current) header.push(...pending.splice(0));
    if (scan.kind === LINE_COMMENT) pending.push(raw.trim());
    else if (scan.kind === LINE_SECTION) {
      const path = raw.slice(scan.nameStart, scan.nameEnd);
      const same = byPath.get(path.toLowerCase());
      current = same ?? { path, line, comments: [], entries: [] };
      current.comments.push(...pending);
      if (!same) {
        sections.push(current);
        byPath.set(path.toLowerCase(), current);
      } else
        voided.push({
          action: 'moved',
          line,
          section: path,
          detail: `the section is opened again; its keys join [${same.path}] of line ${same.line}`,
        });
      pending = [];
    } else if (scan.kind === LINE_ENTRY && current) {
      const entry = {
        key: raw.slice(scan.nameStart, scan.nameEnd),
        value: raw.slice(scan.valueStart, scan.valueEnd),
        line,
        comments: pending,
      };
      const keys = keysOf.get(current) ?? new Map<string, number>();
      keysOf.set(current, keys);
      const dup = keys.get(entry.key.toLowerCase());
      // NSClient++ keeps the last value of a key written twice.
      if (dup !== undefined) {
        const old = inRange(current.entries, dup);
        voided.push({
          action: 'dropped',
          line: old.line,
          section: current.path,
          key: old.key,
          detail: `duplicate: ${old.key} is set again at line ${line}, which wins (as in NSClient++)`,
        });
        current.entries[dup] = entry;
      } else keys.set(entry.key.toLowerCase(), current.entries.push(entry) - 1);
      pending = [];
    } else if (scan.kind === LINE_ENTRY) {
      voided.push({
        action: 'dropped',
        line,
        section: '(none)',
        key: raw.slice(scan.nameStart, scan.nameEnd),
        detail: 'a key above the first section belongs to no section (NSClient++ ignores it too)',
      });
    } else if (scan.kind !== LINE_BLANK) {
      voided.push({
        action: 'dropped',
        line,
        section: current?.path ?? '(none)',
        detail: 'neither a section, a key, a comment nor blank',
      });
    }
  });
  return { header, sections, voided, counted };
}

/** Section names of NSClient++ 0.3.x's NSC.ini (before the /settings/… paths of 0.4). */
const NSC_INI_SECTIONS = new Set([
  'modules',
  'settings',
  'log',
  'nrpe',
  'nrpe handlers',
  'nrpe client handlers',
  'nsclient',
  'nsca agent',
  'nsca commands',
  'external scripts',
  'external alias',
  'external script',
  'script wrappings',
  'wrapped scripts',
  'check system',
  'eventlog',
  'includes',
  'crash',
]);

/** True for an NSClient++ 0.3.x NSC.ini: sections without a leading slash, named as 0.3.x names them. */
export function looksLikeNscIni(text: string): boolean {
  let old = 0;
  let modern = 0;
  for (const m of text.matchAll(/^\s*\[([^\]\r\n]*)\]\s*$/gm)) {
    const name = inRange(m, 1).trim();
    if (name.startsWith('/')) modern++;
    else if (NSC_INI_SECTIONS.has(name.toLowerCase())) old++;
  }
  return old > 0 && modern === 0;
}
