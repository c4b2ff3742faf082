/**
 * `config-agent settings import`: an NSClient++ nsclient.ini in, a settings file of
 * ours out, which validates. The translation (translate.ts) maps what it
 * can; then the result is validated with the loader the agent uses, and any
 * key the loader still refuses (an alias that names a Windows check, a value
 * out of range) is dropped with the loader's message as the reason, until
 * the file is valid (bounded). Every drop and change is in `changes`.
 */
import { basename } from 'node:path';
import { byteSize, SETTINGS_FILE_LIMIT } from '../../formats/regular-file.js';
import { loadSettingsText } from '../model/load.js';
import { problem, type SettingsProblem } from '../model/problem.js';
import { translate } from './translate.js';
import type { ImportChange, OutEntry, OutSection, Translation } from './translation.js';
import { looksLikeNrpeCfg } from '../store/nrpe-cfg-read.js';
import { translateNrpeCfg } from './nrpe-cfg.js';
import { mergeIncludes } from './nsclient-includes.js';
import { lineTotals, type LineTotals } from './line-totals.js';
import { tlsFileProblems } from '../store/tls-checks.js';
import { SERVICE_USER } from '../../formats/sudo-command.js';

// eslint-disable-next-line no-control-regex -- control characters are what is escaped
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
/** Report text with control characters as \xNN / \uNNNN (backslashes of Windows paths stay as written). */
function escapeLog(text: string): string {
  return text.replace(CONTROLS, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

export interface ImportResult {
  /** The settings file of ours, as text. */
  text: string;
  /** True only when config-agent settings validate on the written file would say so (certificate files included). */
  valid: boolean;
  /** The text loads; only files it names (certificates) are missing or broken on this machine: it is written all the same. */
  writable: boolean;
  /** Problems the loader still reports (only when valid is false: a defect of the translation). */
  problems: SettingsProblem[];
  warnings: SettingsProblem[];
  changes: ImportChange[];
  unsupportedModules: string[];
  /** What the input was, detected by its content. */
  source: 'nsclient' | 'nrpe';
  /** Lines of the input (and its includes) by what became of them. */
  totals?: LineTotals;
  /** The sudoers lines the agent's user needs for the commands that run sudo (nrpe.cfg sources). */
  sudoers: string[];
  /** Windows-only items: left out (scripts through cmd, powershell, cscript, .bat, .ps1, .vbs; Windows modules; Windows paths), or kept as written (kind `value`: a drive letter or is_hung in a query command). */
  windowsOnly: { kind: string; name: string; line: number }[];
}

const MAX_ROUNDS = 20;

/**
 * Translate `text` (read from `sourceFile`) for a settings file that will
 * live at `outputFile` (variables and relative paths resolve from there).
 */
export function importNsclient(text: string, sourceFile: string, outputFile: string): ImportResult {
  const nrpe = looksLikeNrpeCfg(text);
  const t = nrpe ? translateNrpeCfg(text, sourceFile) : translate(text, sourceFile);
  if (!nrpe) mergeIncludes(t, sourceFile);
  const label = nrpe ? 'NRPE' : 'NSClient++';
  // Validated with every command in place of the includes that bring some at load (a text has no includes to follow).
  let rendered = render(t, sourceFile, label, 'check');
  // The agent does not read a settings file over its size limit: say so before validating what it would refuse.
  const size = Buffer.byteLength(rendered.text);
  if (size > SETTINGS_FILE_LIMIT) return tooLarge(t, rendered.text, size, sourceFile, outputFile, nrpe);
  let loaded = loadSettingsText(rendered.text, outputFile);
  for (let round = 0; round < MAX_ROUNDS && !loaded.ok; round++) {
    const refused = new Map<OutEntry | OutSection, string>();
    for (const p of loaded.problems) {
      const item = rendered.lines.get(p.line);
      if (item && !refused.has(item)) refused.set(item, p.message);
    }
    if (refused.size === 0) break;
    for (const [item, message] of refused) {
      if ('entries' in item) {
        t.sections = t.sections.filter((s) => s !== item);
        t.changes.push({
          line: item.entries[0]?.line ?? 0,
          section: item.path,
          action: 'dropped',
          detail: `not accepted here: ${message}`,
        });
        for (const e of item.entries)
          t.changes.push({
            ...(e.file !== undefined ? { file: e.file } : {}),
            line: e.line,
            section: e.sourceSection,
            key: e.sourceKey,
            action: 'dropped',
            detail: `with its section [${item.path}]`,
          });
        continue;
      }
      for (const s of t.sections) s.entries = s.entries.filter((e) => e !== item);
      // The line's fate is now this drop, not the kept it was reported as.
      t.changes = t.changes.filter((c) => !(c.action === 'kept' && c.line === item.line && c.file === item.file));
      t.changes.push({
        ...(item.file !== undefined ? { file: item.file } : {}),
        line: item.line,
        section: item.sourceSection,
        key: item.sourceKey,
        action: 'dropped',
        detail: `not accepted here: ${message}`,
      });
    }
    rendered = render(t, sourceFile, label, 'check');
    loaded = loadSettingsText(rendered.text, outputFile);
  }
  // As config-agent settings validate: the listeners' certificate, key and ca files as they would load here.
  const tls = loaded.ok ? tlsFileProblems(loaded.snapshot) : [];
  return {
    text: render(t, sourceFile, label, 'write').text,
    valid: loaded.ok && tls.length === 0,
    writable: loaded.ok,
    problems: loaded.ok ? tls : loaded.problems,
    // A warning about a translated line names the line it came from (file and line of the nrpe.cfg or nsclient.ini).
    warnings: loaded.warnings.map((w) => {
      const e = rendered.lines.get(w.line);
      return e && 'key' in e && e.line > 0 ? { ...w, file: e.file ?? sourceFile, line: e.line, col: 1 } : w;
    }),
    ...reportOf(t, sourceFile, nrpe),
  };
}

/** What the report says of a translation, valid or not: every change, the line totals, what was left out. */
function reportOf(
  t: Translation,
  sourceFile: string,
  nrpe: boolean,
): Pick<ImportResult, 'changes' | 'unsupportedModules' | 'source' | 'totals' | 'windowsOnly' | 'sudoers'> {
  return {
    changes: nrpe ? t.changes : byFileAndLine(t.changes, t.counted ?? [], sourceFile),
    unsupportedModules: t.unsupportedModules,
    source: nrpe ? 'nrpe' : 'nsclient',
    ...(t.counted ? { totals: lineTotals(t.counted, t.changes, sourceFile) } : {}),
    windowsOnly: t.windowsOnly ?? [],
    sudoers: t.sudoers ?? [],
  };
}

/** The result of a translation too large to be one settings file: nothing valid, nothing written, the report complete. */
function tooLarge(
  t: Translation,
  text: string,
  size: number,
  sourceFile: string,
  outputFile: string,
  nrpe: boolean,
): ImportResult {
  const mib = `${(size / (1024 * 1024)).toFixed(1)} MiB`;
  return {
    text,
    valid: false,
    writable: false,
    problems: [
      problem('AGENT_ERR_IMPORT_TOO_LARGE', [mib, byteSize(SETTINGS_FILE_LIMIT)], {
        file: outputFile,
        line: 1,
        col: 1,
      }),
    ],
    warnings: [],
    ...reportOf(t, sourceFile, nrpe),
  };
}

/** Changes in the order of the files read (the main file first), then by line. */
function byFileAndLine(
  changes: ImportChange[],
  counted: readonly { file: string }[],
  sourceFile: string,
): ImportChange[] {
  const order = new Map<string, number>([[sourceFile, 0]]);
  for (const c of counted) if (!order.has(c.file)) order.set(c.file, order.size);
  return changes.sort(
    (a, b) => (order.get(a.file ?? sourceFile) ?? 0) - (order.get(b.file ?? sourceFile) ?? 0) || a.line - b.line,
  );
}

/** The report as text lines: `file:line: [section] key: action: detail`. */
export function formatChanges(result: ImportResult, sourceFile: string): string[] {
  // Everything that came from the file is escaped: a control character in it must not reach the terminal raw.
  const lines = result.changes
    .filter((c) => c.action !== 'kept')
    .map((c) =>
      escapeLog(
        `${c.file ?? sourceFile}:${c.line}: ${c.section === '(nrpe.cfg)' ? '' : `[${c.section}]`}${c.key !== undefined ? `${c.section === '(nrpe.cfg)' ? '' : ' '}${c.key}` : ''}: ${c.action}: ${c.detail}`,
      ),
    );
  const dropped = result.windowsOnly.filter((w) => w.kind !== 'value');
  if (dropped.length > 0) {
    const kinds = new Map<string, number>();
    for (const w of dropped) kinds.set(w.kind, (kinds.get(w.kind) ?? 0) + 1);
    lines.push(
      escapeLog(
        `Windows-only, not carried over (${dropped.length}: ${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}): ${dropped.map((w) => `${w.name} (line ${w.line})`).join(', ')}`,
      ),
    );
  }
  // Values inside a command that is carried over (a drive letter, is_hung): kept, and they answer UNKNOWN here.
  const values = result.windowsOnly.filter((w) => w.kind === 'value');
  if (values.length > 0)
    lines.push(
      escapeLog(
        `Windows-only values, kept as written and answering UNKNOWN here until changed (${values.length}): ${values.map((w) => `${w.name} (line ${w.line})`).join(', ')}`,
      ),
    );
  const n = result.totals;
  if (n)
    lines.push(
      `${sourceFile}: ${n.lines} line(s) read (${n.files} file(s)): ${n.kept} kept, ${n.changed} changed, ${n.dropped} dropped, ${n.blank} blank or comment`,
    );
  if (result.sudoers.length > 0)
    lines.push(
      `sudo: commands here ran sudo as nagios; the agent runs as ${SERVICE_USER}, which needs its own sudoers lines (visudo -f /etc/sudoers.d/config-agent), and sudo needs the unit's NoNewPrivileges lifted (docs/migration.md, "sudo"):`,
      ...result.sudoers.map((l) => `  ${escapeLog(l)}`),
    );
  if (result.unsupportedModules.length > 0)
    lines.push(
      escapeLog(`NSClient++ modules not carried over (not supported here): ${result.unsupportedModules.join(', ')}`),
    );
  return lines;
}

/** Write the sections as INI; remember which output line holds which entry. */
function render(
  t: Translation,
  sourceFile: string,
  label: string,
  mode: 'check' | 'write',
): { text: string; lines: Map<number, OutEntry | OutSection> } {
  const out: string[] = [
    `; Translated from ${basename(sourceFile)} (${label}) by config-agent settings import.`,
    '; Every key left out or changed is listed in the import report.',
  ];
  if (t.header.length > 0) out.push('', ...t.header);
  const lines = new Map<number, OutEntry | OutSection>();
  // 'check': the commands an include brings at load in place, no [/includes]; 'write': the includes instead.
  const shown = t.sections
    .filter((s) => mode === 'write' || s.path !== '/includes')
    .map((s) => (mode === 'write' ? { ...s, entries: s.entries.filter((e) => e.loadedFrom === undefined) } : s));
  for (const s of shown.filter(keep)) {
    out.push('', ...s.comments, `[${s.path}]`);
    lines.set(out.length, s);
    s.entries.forEach((e, i) => {
      // A key with its own comment gets a blank line above, as NSClient++ writes them.
      if (e.comments.length > 0 && i > 0) out.push('');
      out.push(...e.comments);
      out.push(`${e.key} = ${quoted(e.value)}`);
      lines.set(out.length, e);
    });
  }
  return { text: `${out.join('\n')}\n`, lines };
}

/** A section stays when it holds keys, or when it is an object section (its mere presence defines the object). */
function keep(s: OutSection): boolean {
  return s.entries.length > 0 || /\/(targets|users|alias)\/[^/]+$/i.test(s.path);
}

/** Values our reader would trim or unquote are written in double quotes. */
function quoted(value: string): string {
  if (value !== value.trim() || (value.length >= 2 && value.startsWith('"') && value.endsWith('"')))
    return `"${value}"`;
  return value;
}
