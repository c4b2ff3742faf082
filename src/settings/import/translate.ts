/**
 * Translate an NSClient++ settings file (nsclient.ini) into sections of
 * ours: module names, section paths and keys are mapped (nsclient-map.ts,
 * then the schemas), values are adjusted where the meaning needs it, and
 * every key that is dropped or changed is recorded with its source line and
 * the reason. Comments travel with the section or key they stand above.
 * Pure: reads nothing but the text; rendering and validation are in
 * import.ts.
 */
import { loadSchemaSet } from '../model/schema-set.js';
import { moduleInfo } from '../model/module-table.js';
import {
  DROPPED_KEYS,
  DROPPED_OBJECT_KEYS,
  DROPPED_SECTIONS,
  DROPPED_TARGET_KEYS,
  LOG_LEVELS,
  MODULE_RENAMES,
  SCRIPT_OBJECT_KEYS,
  SECTION_RENAMES,
  WINDOWS_MODULES,
} from './nsclient-map.js';
import { readSource } from './nsclient-source.js';
import {
  allowedHosts,
  checkPlaceholders,
  isWindowsPath,
  keptNotes,
  passiveValue,
  pathVariables,
  scriptLine,
  windowsScript,
} from './nsclient-values.js';
import { copyDefaultTimeouts } from './default-timeout.js';
import type { ChangeAction, ImportChange, OutEntry, OutSection, Translation } from './translation.js';
import { inRange } from '../../in-range.js';

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

const SCRIPTS = '/settings/external scripts/scripts';
const WRAPPED = '/settings/external scripts/wrapped scripts';

// long function: one pass over the sections in order, a branch per kind; the kinds that grew have their own files
export function translate(text: string, file = 'nsclient.ini'): Translation {
  const { header, sections: source, voided, counted } = readSource(text, file);
  const set = loadSchemaSet();
  const out = new Map<string, OutSection>();
  const changes: ImportChange[] = voided.map((v) => ({
    line: v.line,
    section: v.section,
    ...(v.key !== undefined ? { key: v.key } : {}),
    action: v.action,
    detail: v.detail,
  }));
  const unsupported: string[] = [];
  const windowsOnly: { kind: string; name: string; line: number }[] = [];
  const includes: { value: string; line: number }[] = [];
  const index = new Map<OutSection, Map<string, number>>();
  const target = (path: string): OutSection => {
    let s = out.get(path.toLowerCase());
    if (!s) out.set(path.toLowerCase(), (s = { path, comments: [], entries: [] }));
    return s;
  };
  const put = (path: string, e: OutEntry): void => {
    const s = target(path);
    const keys = index.get(s) ?? new Map<string, number>();
    index.set(s, keys);
    const i = keys.get(e.key.toLowerCase()) ?? -1;
    if (i >= 0) {
      changes.push({
        line: e.line,
        section: e.sourceSection,
        key: e.sourceKey,
        action: 'dropped',
        detail: `[${path}] ${e.key} is already set at line ${inRange(s.entries, i).line}, which wins`,
      });
      return;
    }
    keys.set(e.key.toLowerCase(), s.entries.push(e) - 1);
  };

  for (const sec of source) {
    const note = (line: number, key: string | undefined, action: ChangeAction, detail: string): void =>
      void changes.push({ line, section: sec.path, ...(key !== undefined ? { key } : {}), action, detail });
    const lower = sec.path.toLowerCase();
    // Long-form scripts become one-liners.
    if (lower.startsWith(`${SCRIPTS}/`)) {
      const name = sec.path.slice(SCRIPTS.length + 1);
      const cmd = sec.entries.find((e) => e.key.toLowerCase() === 'command');
      for (const e of sec.entries)
        if (e !== cmd) note(e.line, e.key, 'dropped', SCRIPT_OBJECT_KEYS[e.key.toLowerCase()] ?? 'not supported here');
      if (!cmd) {
        note(sec.line, undefined, 'dropped', 'a script object without command runs nothing');
        continue;
      }
      const win = windowsScript(cmd.value);
      if (win) {
        windowsOnly.push({ kind: win, name, line: cmd.line });
        note(sec.line, undefined, 'dropped', `Windows-only script (${win}): ${cmd.value}`);
        note(cmd.line, 'command', 'dropped', `Windows-only script (${win})`);
        continue;
      }
      note(sec.line, undefined, 'moved', `written as ${name} = … in [${SCRIPTS}]`);
      put(SCRIPTS, {
        key: name,
        value: scriptLine(cmd.value, (d) => note(cmd.line, 'command', 'changed', d)),
        comments: [...sec.comments, ...cmd.comments],
        line: cmd.line,
        sourceSection: sec.path,
        sourceKey: 'command',
      });
      continue;
    }
    // [/includes]: the files are read and merged into the result by import.ts (nsclient-includes.ts).
    if (lower === '/includes') {
      note(
        sec.line,
        undefined,
        'moved',
        "the files it names are imported and merged into the result (this file's keys win)",
      );
      for (const e of sec.entries) {
        note(e.line, e.key, 'moved', `${e.value}: imported and merged into the result`);
        includes.push({ value: e.value, line: e.line });
      }
      continue;
    }
    const dropped = DROPPED_SECTIONS.find(([prefix]) => lower === prefix || lower.startsWith(`${prefix}/`));
    if (dropped) {
      note(
        sec.line,
        undefined,
        'dropped',
        `${dropped[1]}${sec.entries.length > 0 ? ` (${sec.entries.length} key(s) dropped with it)` : ''}`,
      );
      for (const e of sec.entries) note(e.line, e.key, 'dropped', `with its section [${sec.path}]`);
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
      note(
        sec.line,
        undefined,
        'dropped',
        `section not supported here${sec.entries.length > 0 ? ` (${sec.entries.length} key(s) dropped with it)` : ''}`,
      );
      for (const e of sec.entries) note(e.line, e.key, 'dropped', `with its section [${sec.path}]`);
      continue;
    }
    const canonical = found.canonical;
    if (canonical.toLowerCase() !== lower) note(sec.line, undefined, 'renamed', `to [${canonical}]`);
    const outSec = target(canonical);
    outSec.comments.push(...sec.comments);
    const isTarget = /\/client\/targets\/[^/]+$/i.test(canonical);
    const insecure =
      canonical === '/settings/remote/server' &&
      sec.entries.some((e) => e.key.toLowerCase() === 'insecure' && /^(1|true|yes|on|enabled)$/i.test(e.value.trim()));
    for (const e of sec.entries) {
      const k = e.key.toLowerCase();
      const drop = (why: string): void => note(e.line, e.key, 'dropped', why);
      if (canonical === '/modules') {
        const mod = moduleInfo(MODULE_RENAMES[k] ?? e.key);
        if (!mod) {
          unsupported.push(e.key);
          const windows = WINDOWS_MODULES[k];
          if (windows) windowsOnly.push({ kind: 'module', name: e.key, line: e.line });
          drop(windows ? `Windows-only module: ${windows}` : 'module not supported here');
          continue;
        }
        if (mod.name !== e.key) note(e.line, e.key, 'renamed', `to ${mod.name}`);
        put(canonical, {
          key: mod.name,
          value: e.value,
          comments: e.comments,
          line: e.line,
          sourceSection: sec.path,
          sourceKey: e.key,
        });
        continue;
      }
      // A damaged line (a NUL, an escape sequence) is not carried into the file; allowed hosts is written empty instead (never wider).
      if (CONTROL.test(e.key) || (CONTROL.test(e.value) && k !== 'allowed hosts')) {
        drop('holds control characters (shown escaped here): a damaged line is not carried over');
        continue;
      }
      const container = found.section.container;
      const why =
        DROPPED_KEYS[canonical]?.[k] ??
        (container !== undefined ? DROPPED_OBJECT_KEYS[container]?.[k] : undefined) ??
        (isTarget && !found.section.keys.has(k) ? DROPPED_TARGET_KEYS[k] : undefined);
      if (why !== undefined) {
        drop(why);
        continue;
      }
      if (canonical === '/settings/remote/server' && k === 'insecure') {
        // NSClient++'s insecure only changes defaults (no certificate, anonymous DH allowed); values given are used all the same, so they are kept.
        drop(
          insecure
            ? "no key here: insecure = true changes NSClient++'s defaults to no certificate with anonymous DH, which is what this server does when no certificate is set; a certificate or cipher list given is kept and used, as NSClient++ uses it"
            : 'no meaning here: insecure = false is the default behaviour with a certificate',
        );
        continue;
      }
      const key =
        found.section.keys.get(k) ??
        (typeof found.section.schema.additionalProperties === 'object' ? e.key : undefined);
      if (key === undefined) {
        drop('not supported here');
        continue;
      }
      let value = e.value;
      const changed = (d: string): void => note(e.line, e.key, 'changed', d);
      if (isWindowsPath(value)) {
        windowsOnly.push({ kind: 'path', name: `[${sec.path}] ${e.key}`, line: e.line });
        drop(`Windows path ${value}: no counterpart on this host; set a path of this host`);
        continue;
      }
      const win = canonical === SCRIPTS || canonical === WRAPPED ? windowsScript(value) : undefined;
      if (win) {
        windowsOnly.push({ kind: win, name: e.key, line: e.line });
        drop(`Windows-only script (${win})`);
        continue;
      }
      value = pathVariables(value, changed);
      if (/\/alias($|\/)/i.test(canonical) || /syntax/i.test(k)) value = checkPlaceholders(value, changed);
      if (k === 'allowed hosts') value = allowedHosts(value, changed);
      if (canonical === '/settings/WEB/server' && k === 'port' && /^\d+$/.test(value.trim())) {
        value = `${value.trim()}s`;
        changed(`${e.value} became ${value}: NSClient++ serves the web on TLS, and a trailing s means TLS here`);
      }
      const to = canonical === '/settings/log' && k === 'level' ? LOG_LEVELS[value.trim().toLowerCase()] : undefined;
      if (to) {
        changed(`level ${value} became ${to}`);
        value = to;
      }
      if (canonical === SCRIPTS || canonical === WRAPPED) value = scriptLine(value, changed);
      // Published passive-check files write `address = 10.0.0.1 ;;; the Nagios server`: in NSClient++ (and here) that is all value.
      if (/^\/settings\/(nsca|icinga)\/client/i.test(canonical) && /\s;/.test(value))
        note(
          e.line,
          e.key,
          'note',
          `kept as written: " ;…" is part of the value in NSClient++ and here, not a comment; remove it if it was meant as one`,
        );
      const passive = passiveValue(canonical, container, k, value);
      if (passive !== undefined) {
        if ('drop' in passive) {
          drop(passive.drop);
          continue;
        }
        if (passive.value !== value) changed(`${value} became ${passive.value}`);
        value = passive.value;
      }
      if (key !== e.key && typeof found.section.schema.additionalProperties !== 'object')
        note(e.line, e.key, 'renamed', `to ${key}`);
      for (const n of keptNotes(canonical, k, value, (w) => windowsOnly.push({ kind: 'value', name: w, line: e.line })))
        note(e.line, e.key, 'note', n);
      put(canonical, { key, value, comments: e.comments, line: e.line, sourceSection: sec.path, sourceKey: e.key });
    }
  }
  copyDefaultTimeouts(source, out, put, changes);
  // Every line that no change accounts for was carried over as it is.
  const reported = new Set(changes.filter((c) => c.action !== 'note').map((c) => c.line));
  for (const sec of out.values())
    for (const e of sec.entries)
      if (e.line > 0 && !reported.has(e.line))
        changes.push({
          line: e.line,
          section: e.sourceSection,
          key: e.sourceKey,
          action: 'kept',
          detail: `[${sec.path}] ${e.key}`,
        });
  for (const c of changes) if (c.action !== 'note') reported.add(c.line);
  for (const src of source)
    if (!reported.has(src.line))
      changes.push({ line: src.line, section: src.path, action: 'kept', detail: `[${src.path}]` });
  return {
    header,
    sections: [...out.values()],
    changes: changes.sort((a, b) => a.line - b.line),
    unsupportedModules: unsupported,
    windowsOnly,
    counted,
    includes,
  };
}
