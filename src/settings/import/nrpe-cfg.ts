/**
 * Translate an NRPE daemon configuration (nrpe.cfg, with its include and
 * include_dir files: nrpe-cfg-includes.ts) into sections of ours:
 * RemoteServer answers check_nrpe, and each `command[name]=line` becomes an
 * NRPE command of CheckExternalScripts, run as nrpe ran it
 * (checks/scripts/nrpe-command.ts). Every line is accounted for in the changes: kept,
 * changed or dropped with the reason (README: "Moving from NRPE").
 * Rendering and validation are import.ts's.
 */
import { resolve } from 'node:path';
import { readNrpeCfg, type CfgLine } from '../store/nrpe-cfg-read.js';
import { followedIncludes } from './nrpe-cfg-includes.js';
import { DROPPED, OPTIONS } from './nrpe-cfg-options.js';
import { sudoersLine, sudoUses, type SudoUse } from '../../formats/sudo-command.js';
import type { ChangeAction, ImportChange, OutEntry, OutSection, Translation } from './translation.js';
import { allowedHosts } from './nsclient-values.js';
import type { LineCount } from './line-totals.js';
import { inRange } from '../../in-range.js';

const SERVER = '/settings/remote/server';
const INCLUDES = '/includes';
const SCRIPTS = '/settings/external scripts';
const NRPE_COMMANDS = '/settings/external scripts/nrpe commands';

// long function: one pass over nrpe.cfg's lines in order, a branch per directive; nrpe's own parser reads it the same way
export function translateNrpeCfg(
  text: string,
  file: string,
): Translation & { counted: LineCount[]; sudoers: string[] } {
  const read = readNrpeCfg(text, file);
  const changes: ImportChange[] = [];
  const sections = new Map<string, OutSection>();
  const target = (path: string): OutSection => {
    let s = sections.get(path);
    if (!s) sections.set(path, (s = { path, comments: [], entries: [] }));
    return s;
  };
  const index = new Map<string, Map<string, number>>();
  const accounted = new Set<string>();
  const fileOf = (l: CfgLine): { file?: string } => (l.file === file ? {} : { file: l.file });
  const record = (l: CfgLine, action: ChangeAction, detail: string): void => {
    accounted.add(`${l.file}\n${l.line}`);
    changes.push({ ...fileOf(l), line: l.line, section: '(nrpe.cfg)', key: l.name || l.text.trim(), action, detail });
  };
  /** Entries by section and key: the last line wins, as in nrpe; the one it replaces is reported. */
  const put = (path: string, key: string, value: string, l: CfgLine, comments: string[] = []): void => {
    const s = target(path);
    const keys = index.get(path) ?? new Map<string, number>();
    index.set(path, keys);
    const i = keys.get(key.toLowerCase()) ?? -1;
    const entry: OutEntry = {
      key,
      value,
      comments,
      line: l.line,
      ...fileOf(l),
      sourceSection: '(nrpe.cfg)',
      sourceKey: l.name,
    };
    if (i >= 0) {
      const old = inRange(s.entries, i);
      const at = `${l.file}:${l.line}`;
      changes.push({
        ...(old.file !== undefined ? { file: old.file } : {}),
        line: old.line,
        section: '(nrpe.cfg)',
        key: old.sourceKey,
        action: 'dropped',
        detail:
          old.sourceKey === l.name
            ? `duplicate: ${old.sourceKey} is set again at ${at}, which wins (as in nrpe)`
            : `${old.sourceKey} and ${l.name} (${at}) differ only in case: nrpe keeps both, but query names here are case-insensitive, so the later one wins`,
      });
      // The replaced line's fate is this drop, not the kept it may have been reported as.
      const kept = changes.findIndex(
        (c) => c.action === 'kept' && c.line === old.line && (c.file ?? file) === (old.file ?? file),
      );
      if (kept >= 0) changes.splice(kept, 1);
      s.entries[i] = entry;
    } else keys.set(key.toLowerCase(), s.entries.push(entry) - 1);
  };
  const followed = followedIncludes(read);
  for (const e of followed.entries) put(INCLUDES, e.key, e.value, e.line);
  const settings = new Map<string, CfgLine>();
  const commentsOf = new Map<CfgLine, string[]>();
  let pending: string[] = [];
  for (const l of read.lines) {
    if (l.kind === 'blank') {
      pending = [];
      continue;
    }
    if (l.kind === 'comment') {
      pending.push(`; ${l.text.trim().replace(/^#+\s?/, '')}`);
      continue;
    }
    if (l.kind === 'bad') {
      record(
        l,
        'dropped',
        `nrpe refuses this line (no name=value, nothing after =, or command[] without a name) and stops reading ${l.file === file ? 'the file: it does not start with this nrpe.cfg' : 'this file here'}`,
      );
      continue;
    }
    if (l.kind === 'unread') {
      record(l, 'dropped', 'not read: nrpe stopped reading this file at a line above that it refuses');
      continue;
    }
    commentsOf.set(l, pending);
    pending = [];
    if (['include', 'include_file', 'include_dir'].includes(l.name)) {
      const f = followed.entries.find((e) => e.line === l);
      record(
        l,
        'kept',
        f
          ? `[/includes] ${f.key} = ${f.value}: its command lines are read at each load, as nrpe reads them; its other options are imported here, each reported with its own file and line`
          : `inlined: the lines of ${l.value} are imported in place, each reported with its own file and line`,
      );
      continue;
    }
    // nrpe takes any name holding "debug" for the debug option (strstr).
    const key =
      l.command !== undefined
        ? `command:${l.command}`
        : !OPTIONS.has(l.name) && l.name.includes('debug')
          ? 'debug'
          : l.name;
    const prior = settings.get(key);
    if (prior)
      record(prior, 'dropped', `duplicate: ${l.name} is set again at ${l.file}:${l.line}, which wins (as in nrpe)`);
    // Map order is first insertion: move a redefined key to the end.
    settings.delete(key);
    settings.set(key, l);
  }
  for (const m of read.missing)
    changes.push({
      ...(m.file === file ? {} : { file: m.file }),
      line: m.line,
      section: '(nrpe.cfg)',
      key: 'include',
      action: 'note',
      detail: `${m.path} not read: ${m.why} (nrpe logs the same and carries on)`,
    });

  const get = (name: string): CfgLine | undefined => settings.get(name);
  const bool = (l: CfgLine | undefined): boolean => l !== undefined && Number.parseInt(l.value, 10) === 1;

  const none: CfgLine = { file, line: 0, kind: 'entry', text: '', name: '', value: '' };
  put('/modules', 'RemoteServer', 'enabled', none);
  put('/modules', 'CheckExternalScripts', 'enabled', none);
  put(SERVER, 'unknown command', 'nrpe', none);

  const scalar = (
    name: string,
    path: string,
    key: string,
    map: (v: string, l: CfgLine) => string = (v) => v,
    why = '',
  ): void => {
    const l = get(name);
    if (!l) return;
    const value = map(l.value, l);
    put(path, key, value, l);
    record(l, value === l.value ? 'kept' : 'changed', `[${path}] ${key} = ${value}${why ? `: ${why}` : ''}`);
  };
  scalar('server_port', SERVER, 'port');
  scalar('server_address', SERVER, 'bind to');
  scalar('connection_timeout', SERVER, 'timeout');
  scalar('command_timeout', SCRIPTS, 'timeout');
  scalar('ssl_cacert_file', SERVER, 'ca');
  scalar('ssl_cert_file', SERVER, 'certificate');
  scalar('ssl_privatekey_file', SERVER, 'certificate key');
  scalar('ssl_enabled', SERVER, 'use ssl', (v) => (Number.parseInt(v, 10) === 1 ? 'true' : 'false'));
  scalar(
    'ssl_client_certs',
    SERVER,
    'verify mode',
    (v) => ['none', 'peer', 'peer-cert'][Number.parseInt(v, 10)] ?? 'none',
    '0 asks for nothing, 1 asks for a certificate, 2 requires one',
  );
  scalar('debug', '/settings/log', 'level', (v) => (Number.parseInt(v, 10) > 0 ? 'debug' : 'info'));
  const hosts = get('allowed_hosts');
  if (hosts) {
    const notes: string[] = [];
    const value = allowedHosts(hosts.value, (d) => notes.push(d));
    put(SERVER, 'allowed hosts', value, hosts);
    record(
      hosts,
      notes.length > 0 ? 'changed' : 'kept',
      notes.length > 0 ? notes.join('; ') : `[${SERVER}] allowed hosts = ${value}`,
    );
  }
  // ssl_use_adh edits the cipher list as nrpe does: 0 appends :!ADH, 2 allows anonymous DH only.
  const adh = get('ssl_use_adh');
  const list = get('ssl_cipher_list');
  const mode = adh ? Number.parseInt(adh.value, 10) : 1;
  const ciphers =
    mode === 2 ? 'ADH@SECLEVEL=0' : `${list?.value ?? 'ALL:!MD5:@STRENGTH:@SECLEVEL=0'}${mode === 0 ? ':!ADH' : ''}`;
  if (list || mode !== 1) put(SERVER, 'allowed ciphers', ciphers, list ?? adh!);
  if (list)
    record(
      list,
      ciphers === list.value ? 'kept' : 'changed',
      `[${SERVER}] allowed ciphers = ${ciphers}${ciphers === list.value ? '' : ` (with ssl_use_adh = ${mode})`}`,
    );
  if (adh)
    record(
      adh,
      mode === 1 ? 'kept' : 'changed',
      mode === 1
        ? "anonymous DH allowed: the cipher list here allows it as nrpe's does"
        : `[${SERVER}] allowed ciphers = ${ciphers}`,
    );
  const args = get('dont_blame_nrpe');
  const allow = bool(args) ? 'true' : 'false';
  if (args) {
    put(SERVER, 'allow arguments', allow, args);
    put(SCRIPTS, 'allow arguments', allow, args);
    const how = bool(args)
      ? "followed as nrpe documents it (Debian's nrpe is built without argument support and drops every request with arguments)"
      : 'requests with arguments are refused';
    record(args, bool(args) ? 'changed' : 'kept', `[${SERVER}] and [${SCRIPTS}] allow arguments = ${allow}: ${how}`);
  }
  const subst = get('allow_bash_command_substitution');
  if (subst && !bool(subst))
    record(subst, 'kept', 'as here: $( in arguments is refused ($ is a refused character in script arguments)');
  const prefix = get('command_prefix');
  if (prefix) record(prefix, 'changed', `written in front of every command line below`);

  const names: string[] = [];
  const sudo: SudoUse[] = [];
  for (const [k, l] of settings) {
    if (!k.startsWith('command:')) continue;
    const name = k.slice('command:'.length);
    names.push(name);
    // nrpe's sh ignores the blanks a line starts with (command[x] = /bin/…); the written line does without them.
    const line = prefix ? `${prefix.value} ${l.value}` : l.value.trimStart();
    sudo.push(...sudoUses(line));
    if (followed.files.has(resolve(l.file))) {
      // Validated with the rest, written only as the include that brings it at each load.
      put(NRPE_COMMANDS, name, line, l, commentsOf.get(l));
      const e = sections.get(NRPE_COMMANDS)?.entries.find((x) => x.key === name);
      if (e) e.loadedFrom = l.file;
      record(l, 'kept', `NRPE command ${name}: read from ${l.file} at each load ([/includes])`);
      continue;
    }
    put(NRPE_COMMANDS, name, line, l, commentsOf.get(l));
    record(
      l,
      prefix ? 'changed' : 'kept',
      `NRPE command ${name}${prefix ? `: prefixed with ${prefix.value}` : ''} (runs as nrpe ran it: /bin/sh -c, stdout only)`,
    );
  }
  // nrpe answers only its commands: so does the server here.
  if (names.length > 0) put(SERVER, 'allowed queries', names.join(', '), none);
  for (const [k, l] of settings) {
    if (k.startsWith('command:') || l.kind !== 'entry') continue;
    if (accounted.has(`${l.file}\n${l.line}`)) continue;
    const reason = DROPPED[l.name];
    const spaced = OPTIONS.has(l.name.trim()) && l.name !== l.name.trim();
    record(
      l,
      'dropped',
      reason ??
        (spaced
          ? `nrpe ignores it too: with blanks around = its name is "${l.name}", which nrpe does not know ("Unknown option"); write ${l.name.trim()}=${l.value.trim()} for nrpe to read it`
          : 'not an nrpe option (nrpe warns "Unknown option" and ignores it)'),
    );
  }
  const order = new Map<string, number>();
  for (const l of read.lines) if (!order.has(l.file)) order.set(l.file, order.size);
  changes.sort((a, b) => (order.get(a.file ?? file) ?? 0) - (order.get(b.file ?? file) ?? 0) || a.line - b.line);
  const counted = read.lines.map((l) => ({ file: l.file, line: l.line, setting: !/^(blank|comment)$/.test(l.kind) }));
  const sudoers = sudoersLine(sudo);
  return { header: [], sections: [...sections.values()], changes, unsupportedModules: [], counted, sudoers };
}
