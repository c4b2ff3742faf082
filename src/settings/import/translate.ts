/**
 * Translate an NSClient++ settings file (nsclient.ini) into sections of
 * ours: module names, section paths and keys are mapped (nsclient-map.ts,
 * then the schemas), values are adjusted where the meaning needs it, and
 * every key that is dropped or changed is recorded with its source line and
 * the reason. Comments travel with the section or key they stand above.
 * Pure: reads nothing but the text; rendering and validation are in
 * import.ts.
 */
import { LINE_BLANK, LINE_COMMENT, LINE_ENTRY, LINE_SECTION, newLineScan, scanLine } from '../read-ini.js';
import { loadSchemaSet } from '../schema-set.js';
import { moduleInfo } from '../module-table.js';
import { parseAllowedHosts } from '../../formats/allowed-hosts.js';
import { DROPPED_KEYS, DROPPED_SECTIONS, DROPPED_TARGET_KEYS, INSECURE_IGNORES, LOG_LEVELS, MODULE_RENAMES, PATH_VARIABLES, SCRIPT_OBJECT_KEYS, SECTION_RENAMES } from './nsclient-map.js';

export type ChangeAction = 'kept' | 'dropped' | 'renamed' | 'changed' | 'moved' | 'note';

/** One line of the report: what happened to a section or key of the source file, and why. */
export interface ImportChange {
  /** The file the line is in, when not the file given to the import (an included file). */
  file?: string;
  line: number;
  /** Section as written in the source. */
  section: string;
  key?: string;
  action: ChangeAction;
  detail: string;
}

export interface OutEntry {
  key: string;
  value: string;
  comments: string[];
  /** Source line, for the report. */
  line: number;
  /** Source file, when not the file given to the import. */
  file?: string;
  sourceSection: string;
  sourceKey: string;
}

export interface OutSection {
  path: string;
  comments: string[];
  entries: OutEntry[];
}

export interface Translation {
  header: string[];
  sections: OutSection[];
  changes: ImportChange[];
  /** NSClient++ modules of [/modules] that have no counterpart here. */
  unsupportedModules: string[];
}

interface SourceEntry {
  key: string;
  value: string;
  line: number;
  comments: string[];
}

interface SourceSection {
  path: string;
  line: number;
  comments: string[];
  entries: SourceEntry[];
}

const SCRIPTS = '/settings/external scripts/scripts';
const WRAPPED = '/settings/external scripts/wrapped scripts';

export function translate(text: string): Translation {
  const { header, sections: source } = readSource(text);
  const set = loadSchemaSet();
  const out = new Map<string, OutSection>();
  const changes: ImportChange[] = [];
  const unsupported: string[] = [];
  const target = (path: string): OutSection => {
    let s = out.get(path.toLowerCase());
    if (!s) out.set(path.toLowerCase(), (s = { path, comments: [], entries: [] }));
    return s;
  };
  const put = (path: string, e: OutEntry): void => {
    const s = target(path);
    const i = s.entries.findIndex((x) => x.key.toLowerCase() === e.key.toLowerCase());
    if (i >= 0) {
      changes.push({ line: e.line, section: e.sourceSection, key: e.sourceKey, action: 'dropped', detail: `[${path}] ${e.key} is already set at line ${s.entries[i].line}, which wins` });
      return;
    }
    s.entries.push(e);
  };

  for (const sec of source) {
    const note = (line: number, key: string | undefined, action: ChangeAction, detail: string): void => void changes.push({ line, section: sec.path, ...(key !== undefined ? { key } : {}), action, detail });
    const lower = sec.path.toLowerCase();
    // Long-form scripts become one-liners.
    if (lower.startsWith(`${SCRIPTS}/`)) {
      const name = sec.path.slice(SCRIPTS.length + 1);
      const cmd = sec.entries.find((e) => e.key.toLowerCase() === 'command');
      for (const e of sec.entries) if (e !== cmd) note(e.line, e.key, 'dropped', SCRIPT_OBJECT_KEYS[e.key.toLowerCase()] ?? 'not supported here');
      if (!cmd) {
        note(sec.line, undefined, 'dropped', 'a script object without command runs nothing');
        continue;
      }
      note(sec.line, undefined, 'moved', `written as ${name} = … in [${SCRIPTS}]`);
      put(SCRIPTS, { key: name, value: scriptLine(cmd.value, (d) => note(cmd.line, 'command', 'changed', d)), comments: [...sec.comments, ...cmd.comments], line: cmd.line, sourceSection: sec.path, sourceKey: 'command' });
      continue;
    }
    const dropped = DROPPED_SECTIONS.find(([prefix]) => lower === prefix || lower.startsWith(`${prefix}/`));
    if (dropped) {
      note(sec.line, undefined, 'dropped', `${dropped[1]}${sec.entries.length > 0 ? ` (${sec.entries.length} key(s) dropped with it)` : ''}`);
      continue;
    }
    let path = sec.path;
    for (const [from, to] of SECTION_RENAMES) {
      if (lower === from || lower.startsWith(`${from}/`)) {
        path = to + sec.path.slice(from.length);
        break;
      }
    }
    const found = set.find(path);
    if (!found) {
      note(sec.line, undefined, 'dropped', `section not supported here${sec.entries.length > 0 ? ` (${sec.entries.length} key(s) dropped with it)` : ''}`);
      continue;
    }
    const canonical = found.canonical;
    if (canonical.toLowerCase() !== lower) note(sec.line, undefined, 'renamed', `to [${canonical}]`);
    const outSec = target(canonical);
    outSec.comments.push(...sec.comments);
    const isTarget = /\/client\/targets\/[^/]+$/i.test(canonical);
    const insecure = canonical === '/settings/remote/server' && sec.entries.some((e) => e.key.toLowerCase() === 'insecure' && /^(1|true|yes|on|enabled)$/i.test(e.value.trim()));
    for (const e of sec.entries) {
      const k = e.key.toLowerCase();
      const drop = (why: string): void => note(e.line, e.key, 'dropped', why);
      if (canonical === '/modules') {
        const mod = moduleInfo(MODULE_RENAMES[k] ?? e.key);
        if (!mod) {
          unsupported.push(e.key);
          drop('module not supported here');
          continue;
        }
        if (mod.name !== e.key) note(e.line, e.key, 'renamed', `to ${mod.name}`);
        put(canonical, { key: mod.name, value: e.value, comments: e.comments, line: e.line, sourceSection: sec.path, sourceKey: e.key });
        continue;
      }
      const why = DROPPED_KEYS[canonical]?.[k] ?? (isTarget ? DROPPED_TARGET_KEYS[k] : undefined);
      if (why !== undefined) {
        drop(why);
        continue;
      }
      if (insecure && (k === 'insecure' || INSECURE_IGNORES.includes(k))) {
        drop(k === 'insecure' ? 'no meaning here: without a certificate the server takes check_nrpe\'s anonymous DH (allowed ciphers ALL:!MD5:@STRENGTH:@SECLEVEL=0), which is what insecure = true means' : 'ignored because insecure = true (NSClient++ ignores it then too)');
        continue;
      }
      if (canonical === '/settings/remote/server' && k === 'insecure') {
        drop('no meaning here: insecure = false is the default behaviour with a certificate');
        continue;
      }
      const key = found.section.keys.get(k) ?? (typeof found.section.schema.additionalProperties === 'object' ? e.key : undefined);
      if (key === undefined) {
        drop('not supported here');
        continue;
      }
      let value = e.value;
      const changed = (d: string): void => note(e.line, e.key, 'changed', d);
      value = pathVariables(value, changed);
      if (k === 'allowed hosts') value = allowedHosts(value, changed);
      if (canonical === '/settings/WEB/server' && k === 'port' && /^\d+$/.test(value.trim())) {
        value = `${value.trim()}s`;
        changed(`${e.value} became ${value}: NSClient++ serves the web on TLS, and a trailing s means TLS here`);
      }
      if (canonical === '/settings/log' && k === 'level' && LOG_LEVELS[value.trim().toLowerCase()]) {
        const to = LOG_LEVELS[value.trim().toLowerCase()];
        changed(`level ${value} became ${to}`);
        value = to;
      }
      if (canonical === SCRIPTS || canonical === WRAPPED) value = scriptLine(value, changed);
      if (key !== e.key && typeof found.section.schema.additionalProperties !== 'object') note(e.line, e.key, 'renamed', `to ${key}`);
      if (/^(certificate|certificate key|ca|dh)$/.test(k) && value.trim() !== '') note(e.line, e.key, 'note', `kept: copy ${value} from the NSClient++ installation, or the module cannot start (a missing web or agent server certificate is generated)`);
      put(canonical, { key, value, comments: e.comments, line: e.line, sourceSection: sec.path, sourceKey: e.key });
    }
  }
  return { header, sections: [...out.values()], changes: changes.sort((a, b) => a.line - b.line), unsupportedModules: unsupported };
}

/** Split the source into sections with their entries and the comments above each. */
function readSource(text: string): { header: string[]; sections: SourceSection[] } {
  const scan = newLineScan();
  const sections: SourceSection[] = [];
  const header: string[] = [];
  let pending: string[] = [];
  let current: SourceSection | undefined;
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, i) => {
    scanLine(raw, 0, raw.length, scan);
    // Comments above the first section and cut off from it by a blank line describe the file.
    if (scan.kind === LINE_BLANK && !current) header.push(...pending.splice(0));
    if (scan.kind === LINE_COMMENT) pending.push(raw.trim());
    else if (scan.kind === LINE_SECTION) {
      const path = raw.slice(scan.nameStart, scan.nameEnd);
      const same = sections.find((s) => s.path.toLowerCase() === path.toLowerCase());
      current = same ?? { path, line: i + 1, comments: [], entries: [] };
      current.comments.push(...pending);
      if (!same) sections.push(current);
      pending = [];
    } else if (scan.kind === LINE_ENTRY && current) {
      const entry = { key: raw.slice(scan.nameStart, scan.nameEnd), value: raw.slice(scan.valueStart, scan.valueEnd), line: i + 1, comments: pending };
      const dup = current.entries.findIndex((e) => e.key.toLowerCase() === entry.key.toLowerCase());
      // NSClient++ keeps the last value of a key written twice.
      if (dup >= 0) current.entries[dup] = entry;
      else current.entries.push(entry);
      pending = [];
    }
  });
  return { header, sections };
}

/** `${shared-path}` and the other NSClient++ installation folders become `${base-path}`. */
function pathVariables(value: string, changed: (d: string) => void): string {
  let out = value;
  for (const v of PATH_VARIABLES) {
    if (out.toLowerCase().includes(`\${${v}}`)) {
      out = out.replace(new RegExp(`\\$\\{${v}\\}`, 'gi'), '${base-path}');
      changed(`\${${v}} became \${base-path} (the settings file's folder)`);
    }
  }
  return out;
}

/** Keep the entries of an allowed hosts list that parse here; report the others. */
export function allowedHosts(value: string, changed: (d: string) => void): string {
  const kept: string[] = [];
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const p = parseAllowedHosts(entry);
    if (p.problems.length > 0) changed(`entry ${entry} left out: ${p.problems[0].replace(/^allowed hosts entry "[^"]*": /, '')}`);
    else kept.push(entry);
  }
  return kept.join(',');
}

/** Script command lines: Windows separators in the program become `/`, and `scripts/` (relative to NSClient++'s folder) is dropped, as scripts start at the script root here. */
function scriptLine(value: string, changed: (d: string) => void): string {
  const m = /^(\s*)(\S+)(.*)$/s.exec(value);
  if (!m) return value;
  let program = m[2];
  if (program.startsWith('"')) return value;
  if (program.includes('\\')) program = program.replace(/\\+/g, '/');
  const rel = /^(?:\.\/)?scripts\/(.+)$/i.exec(program);
  if (rel) program = rel[1];
  if (program === m[2]) return value;
  changed(`program ${m[2]} became ${program} (relative to the script root, / as separator)`);
  return `${m[1]}${program}${m[3]}`;
}
