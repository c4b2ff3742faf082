/**
 * check_logfile: the lines written to log files since the last call on
 * each file (as SNClient+ does; NSClient++'s `bookmark` option is accepted
 * and names a separate set of positions). Reading, rotation and truncation:
 * log-reader.ts; which files: log-paths.ts; positions: log-positions.ts.
 * Lines are filtered while they are read and at most `max-lines` matching
 * lines (the newest) are kept per call, so memory stays bounded however
 * much a file grew.
 */
import { ArgumentError, numberArgument } from '../arguments.js';
import type { CheckDefinition } from '../engine.js';
import type { VarDef, Values } from '../expression/evaluate.js';
import { listArgument } from '../host/options.js';
import { expandLogPattern, LogPathError, resolveAllowed } from './log-paths.js';
import { readNewLines } from './log-reader.js';
import type { LogPositions } from './log-positions.js';

export interface LogfileSettings {
  /** Folders whose files may be read. */
  allowedPaths: readonly string[];
  /** Matching lines kept per call at most (the newest). */
  maxLines: number;
  /** Bytes of one line kept at most. */
  maxLineBytes: number;
  /** Bytes read per file per call at most. */
  maxReadBytes: number;
}

export const MAX_COLUMNS = 32;

const COLUMN_VARS: Record<string, VarDef> = Object.fromEntries(
  Array.from({ length: MAX_COLUMNS }, (_, i) => [
    `column${i + 1}`,
    {
      kind: 'string',
      description:
        i === 0
          ? 'First column of the line (split at column-split); one-based as in NSClient++. column2 ... column32 are the next ones; a missing column is empty.'
          : `Column ${i + 1} of the line.`,
    } satisfies VarDef,
  ]),
);

// long function: a check definition is one object literal (vars, defaults, collect), as every check's; its collector's parts are in their own files
export function logfileCheck(settings: () => LogfileSettings, positions: LogPositions): CheckDefinition {
  return {
    name: 'check_logfile',
    title: 'Log files',
    description:
      'Lines written to log files since the last call on each file, with filters on the line and its columns; follows rotation (by inode) and truncation (copytruncate too). Only files under [/settings/logfile] allowed paths.',
    options: {
      file: { description: 'A log file or glob (*, ?, [..], **); absolute; may be repeated.', repeat: true },
      files: { description: 'Comma list of log files or globs.', repeat: true },
      bookmark: {
        description:
          "Name of a separate set of read positions (NSClient++'s option), so checks with different filters do not take each other's lines; bare or empty means the shared positions.",
        flag: true,
      },
      'line-split': { description: 'Line separator; \\n, \\r\\n and \\t are understood.', default: '\\n' },
      'column-split': {
        description:
          'Column separator for column1, column2, ...; \\t for a tab, a single space splits at runs of blanks.',
        default: '\\t',
      },
      'max-lines': {
        description:
          'Matching lines kept per call at most (the newest); 0 means the [/settings/logfile] max lines limit.',
        default: '0',
      },
      'ignore-missing': { description: 'A file or glob that names no file is not an error.', flag: true },
    },
    vars: {
      file: {
        kind: 'string',
        description: 'Path of the file the line comes from (the rotated-away file for lines it got before rotation).',
      },
      filename: { kind: 'string', description: 'Same as file.' },
      line: { kind: 'string', description: 'The line, without its separator.' },
      line_number: { kind: 'number', description: 'One-based number of the line in its file.' },
      ...COLUMN_VARS,
    },
    defaults: {
      topSyntax: '${status}: ${problem_count}/${count} line(s) (${problem_list})',
      okSyntax: '%(status): %(count)/%(total) new line(s) matched',
      detailSyntax: '${column1}',
      emptySyntax: '%(status): Nothing found (%(total) new line(s) read)',
      emptyState: 'ok',
      // A first read of a busy log must not answer hundreds of KB: the rest is counted as "… N more".
      listCap: { items: 100, bytes: 8192 },
    },
    async collect(args, call) {
      const s = settings();
      const patterns = listArgument(args, 'file', 'files');
      if (patterns.length === 0)
        throw new ArgumentError('check_logfile needs file=PATH (or files=A,B); globs are allowed');
      const maxLines = numberArgument(args, 'max-lines', 0, { min: 0 }) || s.maxLines;
      const kept = Math.min(maxLines, s.maxLines);
      const lineSplit = unescape(args.get('line-split') ?? '\\n');
      const columnSplit = unescape(args.get('column-split') ?? '\\t');
      if (lineSplit === '') throw new ArgumentError('line-split must not be empty');
      const separator = Buffer.from(lineSplit === '\r\n' ? '\n' : lineSplit, 'utf8');
      const bookmark = args.has('bookmark') ? (args.get('bookmark') ?? '').trim() : '';
      const allowed = await resolveAllowed(s.allowedPaths);
      const allowedText = s.allowedPaths.join(', ') || 'none';
      const files: string[] = [];
      for (const p of patterns) {
        let found: string[];
        try {
          found = await expandLogPattern(p, allowed, allowedText);
        } catch (err) {
          if (err instanceof LogPathError) throw new ArgumentError(err.message);
          throw err;
        }
        if (found.length === 0 && !args.flag('ignore-missing')) throw new ArgumentError(`no file matches ${p}`);
        for (const f of found) if (!files.includes(f)) files.push(f);
      }
      const items: Values[] = [];
      let total = 0;
      const split = columnSplitter(columnSplit);
      for (const file of files) {
        if (call.signal.aborted) throw call.signal.reason;
        const key = `${bookmark}\u0000${file}`;
        await positions.exclusive(key, async () => {
          const r = await readNewLines(
            file,
            positions.get(key),
            { separator, maxLineBytes: s.maxLineBytes, maxReadBytes: s.maxReadBytes },
            (line, lineNumber, from) => {
              total++;
              const item: Record<string, string | number> = {
                file: from,
                filename: from,
                line,
                line_number: lineNumber,
              };
              const cols = split(line);
              for (let i = 0; i < MAX_COLUMNS; i++) item[`column${i + 1}`] = cols[i] ?? '';
              if (call.accepts && !call.accepts(item)) return;
              items.push(item);
              if (items.length >= kept * 2) items.splice(0, items.length - kept);
            },
          );
          positions.set(key, r.position);
        });
      }
      call.seen?.(total);
      return items.slice(-kept);
    },
    summaryPerf: [{ object: 'count', key: 'count', alias: 'count', minimum: 0 }],
  };
}

function unescape(s: string): string {
  return s.replace(/\\([nrt\\])/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t', '\\': '\\' })[c] as string);
}

function columnSplitter(sep: string): (line: string) => string[] {
  if (sep === ' ') return (line) => line.trim().split(/\s+/);
  if (sep === '') return (line) => [line];
  return (line) => line.split(sep);
}
