/**
 * Reading an nrpe.cfg the way the NRPE daemon does (NagiosEnterprises/nrpe,
 * read_config_file and read_config_dir): one `name=value` a line, leading
 * and trailing blanks trimmed, `#` starts a comment line, the value is
 * everything after the first `=`. `include=FILE` (also `include_file=`)
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
  /** 'blank' and 'comment' carry no setting; 'entry' has name and value; 'bad' has no `=`. */
  kind: 'blank' | 'comment' | 'entry' | 'bad';
  text: string;
  name: string;
  value: string;
}

export interface CfgRead {
  lines: CfgLine[];
  /** Files that could not be read (include of a missing file), with the line that named them. */
  missing: { file: string; line: number; path: string; why: string }[];
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

/** Read `file` (its text given) and everything it includes. Include paths resolve from the including file's folder when relative. */
export function readNrpeCfg(text: string, file: string): CfgRead {
  const out: CfgRead = { lines: [], missing: [] };
  const seen = new Set<string>();
  const readOne = (body: string, name: string): void => {
    seen.add(resolve(name));
    const rows = body.replace(/^\uFEFF/, '').split(/\r?\n/);
    rows.forEach((raw, i) => {
      // The last line of a file that ends with a newline is not a line.
      if (raw === '' && i === rows.length - 1) return;
      const line = raw.trim();
      const base = { file: name, line: i + 1, text: raw, name: '', value: '' };
      if (line === '') return void out.lines.push({ ...base, kind: 'blank' });
      if (line.startsWith('#')) return void out.lines.push({ ...base, kind: 'comment' });
      const eq = line.indexOf('=');
      if (eq <= 0 || eq === line.length - 1) return void out.lines.push({ ...base, kind: 'bad' });
      const entry: CfgLine = { ...base, kind: 'entry', name: line.slice(0, eq), value: line.slice(eq + 1) };
      out.lines.push(entry);
      const target = isAbsolute(entry.value) ? entry.value : join(dirname(name), entry.value);
      if (entry.name === 'include' || entry.name === 'include_file') follow(target, entry);
      else if (entry.name === 'include_dir')
        for (const f of cfgFiles(target.replace(/\/$/, ''), entry)) follow(f, entry);
    });
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
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch (err) {
      out.missing.push({
        file: from.file,
        line: from.line,
        path: dir,
        why: (err as NodeJS.ErrnoException).code ?? String(err),
      });
      return [];
    }
    const files: string[] = [];
    for (const n of names) {
      const full = join(dir, n);
      const st = statSync(full, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isFile() && n.length > 4 && n.endsWith('.cfg')) files.push(full);
      else if (st.isDirectory() && !n.startsWith('.')) files.push(...cfgFiles(full, from));
    }
    return files;
  };
  readOne(text, file);
  return out;
}
