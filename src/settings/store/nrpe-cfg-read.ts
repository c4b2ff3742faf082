/**
 * Reading an nrpe.cfg the way the NRPE daemon does (NagiosEnterprises/nrpe,
 * read_config_file and read_config_dir; see readCfgLine): one `name=value`
 * a line, leading and trailing blanks trimmed, `#` starts a comment line,
 * the value is everything after the first `=`; a line nrpe refuses ends the
 * reading of its file. `include=FILE` (also `include_file=`)
 * reads that file in place. `include_dir=DIR` reads every `*.cfg` file under
 * DIR in place, in alphabetical order, descending into folders whose names
 * do not start with a dot. Every physical line of every file read is
 * returned, so the import report can account for each one.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

export interface CfgLine {
  file: string;
  line: number;
  /**
   * 'blank' and 'comment' carry no setting; 'entry' has name and value; 'bad' is a line nrpe refuses
   * (no `=`, nothing after it, `command[]`): nrpe stops reading the file there, so the lines after it
   * in that file are 'unread'.
   */
  kind: 'blank' | 'comment' | 'entry' | 'bad' | 'unread';
  text: string;
  /** As nrpe reads it: everything before the first `=`, blanks before the `=` included. */
  name: string;
  /** Everything after the first `=`, blanks after it included (the line's end trimmed). */
  value: string;
  /** For a command line (the name holds `command[`): the command's name. */
  command?: string;
}

export interface CfgRead {
  lines: CfgLine[];
  /** Files that could not be read (include of a missing file), with the line that named them. */
  missing: { file: string; line: number; path: string; why: string }[];
}

/** nrpe's isspace(): the characters it trims off both ends of a line. */
const SPACE = /^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g;

/**
 * One physical line as nrpe 4.1's read_config_file reads it: blanks
 * trimmed off both ends; `#` first is a comment; the name is everything
 * before the first `=` (leading `=`s skipped, as strtok does), the value
 * everything after it; no value is an error. A name that contains
 * `command[` defines the command named between the `[` and the next `]`.
 */
export function readCfgLine(raw: string, file: string, line: number): CfgLine {
  const base = { file, line, text: raw, name: '', value: '' };
  const text = raw.replace(SPACE, '');
  if (text === '') return { ...base, kind: 'blank' };
  if (text.startsWith('#')) return { ...base, kind: 'comment' };
  const body = text.replace(/^=+/, '');
  const eq = body.indexOf('=');
  if (eq < 0 || eq === body.length - 1) return { ...base, kind: 'bad', name: eq < 0 ? body : body.slice(0, eq) };
  const name = body.slice(0, eq);
  const value = body.slice(eq + 1);
  const entry: CfgLine = { ...base, kind: 'entry', name, value };
  if (!isOption(name) && name.includes('command[')) {
    const command =
      name
        .slice(name.indexOf('[') + 1)
        .replace(/^\]+/, '')
        .split(']')[0] ?? '';
    if (command === '') return { ...entry, kind: 'bad' };
    entry.command = command;
  }
  return entry;
}

/** The options nrpe matches by their exact name before it looks for `command[` (read_config_file's order). */
function isOption(name: string): boolean {
  return [
    'include_dir',
    'include',
    'include_file',
    'max_commands',
    'server_port',
    'command_prefix',
    'server_address',
    'allowed_hosts',
  ].includes(name);
}

/** The lines of one file's text (a final line break ends the last line; a BOM is skipped), nrpe's way; after a bad line, unread. */
export function readCfgText(body: string, file: string): CfgLine[] {
  const rows = body.replace(/^\uFEFF/, '').split('\n');
  if (rows.at(-1) === '') rows.pop();
  let stopped = false;
  return rows.map((raw, i) => {
    if (stopped) return { file, line: i + 1, kind: 'unread', text: raw, name: '', value: '' };
    const l = readCfgLine(raw, file, i + 1);
    if (l.kind === 'bad') stopped = true;
    return l;
  });
}

/** True when the text looks like an nrpe.cfg: no INI section, and at least one nrpe key. */
export function looksLikeNrpeCfg(text: string): boolean {
  let nrpeKeys = 0;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    if (/^\[[^\]]*\]$/.test(line)) return false;
    if (
      /^(command\[[^\]]*\]|server_port|server_address|allowed_hosts|dont_blame_nrpe|nrpe_user|nrpe_group|pid_file|command_timeout|connection_timeout|include_dir|include)\s*=/.test(
        line,
      )
    )
      nrpeKeys++;
  }
  return nrpeKeys > 0;
}

const MAX_FILES = 1000;
/** Folders below an include_dir this deep at most (a loop of symbolic links ends here). */
const MAX_DEPTH = 16;

/** Read `file` (its text given) and everything it includes. Include paths resolve from the including file's folder when relative. */
export function readNrpeCfg(text: string, file: string): CfgRead {
  const out: CfgRead = { lines: [], missing: [] };
  const seen = new Set<string>();
  const readOne = (body: string, name: string): void => {
    seen.add(resolve(name));
    for (const entry of readCfgText(body, name)) {
      out.lines.push(entry);
      if (entry.kind !== 'entry') continue;
      const target = isAbsolute(entry.value) ? entry.value : join(dirname(name), entry.value);
      if (entry.name === 'include' || entry.name === 'include_file') follow(target, entry);
      else if (entry.name === 'include_dir')
        for (const f of cfgFiles(target.replace(/\/$/, ''), entry)) follow(f, entry);
    }
  };
  const follow = (path: string, from: CfgLine): void => {
    if (seen.has(resolve(path)))
      return void out.missing.push({ file: from.file, line: from.line, path, why: 'already read (an include loop)' });
    if (seen.size >= MAX_FILES)
      return void out.missing.push({ file: from.file, line: from.line, path, why: `more than ${MAX_FILES} files` });
    let body: string;
    try {
      body = readFileSync(path, 'utf8');
    } catch (err) {
      return void out.missing.push({
        file: from.file,
        line: from.line,
        path,
        why: (err as NodeJS.ErrnoException).code ?? String(err),
      });
    }
    readOne(body, path);
  };
  const cfgFiles = (dir: string, from: CfgLine): string[] => {
    const found = nrpeFolderFiles(dir);
    if ('error' in found) {
      out.missing.push({ file: from.file, line: from.line, path: dir, why: found.error });
      return [];
    }
    return found.files;
  };
  readOne(text, file);
  return out;
}

/**
 * The files nrpe's include_dir reads under `dir` (read_config_dir), in its
 * order: the names sorted, each `*.cfg` regular file (a name longer than
 * `.cfg`), and each folder whose name does not start with a dot read the
 * same way at its place; a folder named `*.cfg` is neither.
 */
export function nrpeFolderFiles(dir: string, depth = 0): { files: string[] } | { error: string } {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (err) {
    return { error: (err as NodeJS.ErrnoException).code ?? String(err) };
  }
  const files: string[] = [];
  for (const n of names) {
    const full = join(dir, n);
    const st = statSync(full, { throwIfNoEntry: false });
    if (!st) continue;
    if (n.length > 4 && n.endsWith('.cfg')) {
      if (st.isFile()) files.push(full);
    } else if (st.isDirectory() && !n.startsWith('.') && depth < MAX_DEPTH) {
      const below = nrpeFolderFiles(full, depth + 1);
      if ('files' in below) files.push(...below.files);
    }
  }
  return { files };
}
