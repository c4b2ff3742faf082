/**
 * Translate an NRPE daemon configuration (nrpe.cfg, with its include and
 * include_dir files inlined) into sections of ours: RemoteServer answers
 * check_nrpe, and each `command[name]=line` becomes a script of
 * CheckExternalScripts. Every line is accounted for in the changes: kept,
 * changed or dropped with the reason (README: "Moving from NRPE").
 * Rendering and validation are import.ts's.
 */
import { readNrpeCfg, type CfgLine } from './nrpe-cfg-read.js';
import type { ChangeAction, ImportChange, OutEntry, OutSection, Translation } from './translation.js';
import { allowedHosts } from './nsclient-values.js';
import type { LineCount } from './line-totals.js';

const SERVER = '/settings/remote/server';
const SCRIPTS = '/settings/external scripts';
const SCRIPT_LIST = '/settings/external scripts/scripts';

/** Options that have no counterpart, with the reason given in the report. */
const DROPPED: Readonly<Record<string, string>> = {
  nrpe_user:
    'the agent and its scripts run as the user of its service (User= of the systemd unit), not as a user it switches to',
  nrpe_group: 'the agent and its scripts run as the group of its service (Group= of the systemd unit)',
  pid_file: 'no pid file: systemd tracks the agent (Type=notify)',
  log_file: 'the agent logs to stdout (the journal under systemd); [/settings/log] level sets how much',
  disable_syslog: 'the agent logs to stdout (the journal under systemd), never to syslog directly',
  log_facility: 'the agent logs to stdout (the journal under systemd), never to syslog directly',
  nasty_metachars:
    'the refused characters are fixed here: | ` & > < \' \\ [ ] { } ; and line breaks in requests, and $ and " too in script arguments ([/settings/remote/server] and [/settings/external scripts] allow nasty characters)',
  allow_bash_command_substitution:
    '$( is always refused in script arguments here: $ is a refused character unless [/settings/external scripts] allow nasty characters = true',
  ssl_version: 'no key here: the server takes TLS 1.2 and 1.3 (1.2 at most without a certificate, as nrpe)',
  ssl_logging: 'no key here: TLS failures are logged at debug level',
  ssl_shutdown_timeout: 'no key here: the server closes right after its answer',
  listen_queue_size:
    "no key here: the listen backlog is Node's (511); [/settings/remote/server] max connections limits open connections",
  allow_weak_random_seed: 'no meaning here: Node seeds its random numbers from the operating system',
  keep_env_vars: "no key here: scripts get the agent's environment",
  address_family: 'no key here: bind to decides (an IPv6 address, an IPv4 address, or empty for both)',
  max_commands:
    'no key here as a limit of connections; [/settings/external scripts] max concurrent (8) limits scripts running at once',
};

/** Characters that make nrpe's /bin/sh do something our word splitting would not. */
const SHELL_SYNTAX = /[|&;<>()`*?~]|\$(?!ARG\d+\$|ARGS\$)[A-Za-z_{(?]/;

export function translateNrpeCfg(text: string, file: string): Translation & { counted: LineCount[] } {
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
      const old = s.entries[i];
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
      record(l, 'dropped', 'not a name=value line (nrpe refuses the file at this line)');
      continue;
    }
    commentsOf.set(l, pending);
    pending = [];
    if (['include', 'include_file', 'include_dir'].includes(l.name)) {
      record(
        l,
        'kept',
        `followed: the lines of ${l.value} are imported in place (inlined), each reported with its own file and line`,
      );
      continue;
    }
    const command = /^command\[([^\]]+)\]$/.exec(l.name);
    const key = command ? `command:${command[1]}` : l.name;
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

  put('/modules', 'RemoteServer', 'enabled', { file, line: 0, kind: 'entry', text: '', name: '', value: '' });
  put('/modules', 'CheckExternalScripts', 'enabled', { file, line: 0, kind: 'entry', text: '', name: '', value: '' });
  put(SERVER, 'unknown command', 'nrpe', { file, line: 0, kind: 'entry', text: '', name: '', value: '' });

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
  for (const [k, l] of settings) {
    if (!k.startsWith('command:')) continue;
    const name = k.slice('command:'.length);
    names.push(name);
    let line = prefix ? `${prefix.value} ${l.value}` : l.value;
    const why: string[] = [];
    if (prefix) why.push(`prefixed with ${prefix.value}`);
    if (SHELL_SYNTAX.test(line) && !/^\s*(\/usr)?(\/bin\/)?(ba|da)?sh\s+-c\s/.test(line)) {
      line = `/bin/sh -c "${line.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
      why.push('runs through /bin/sh -c, as nrpe runs every command line (it holds shell syntax)');
    }
    put(SCRIPT_LIST, name, line, l, commentsOf.get(l));
    record(
      l,
      why.length > 0 ? 'changed' : 'kept',
      why.length > 0 ? `script ${name}: ${why.join('; ')}` : `script ${name}`,
    );
  }
  // nrpe answers only its commands: so does the server here.
  if (names.length > 0)
    put(SERVER, 'allowed queries', names.join(', '), { file, line: 0, kind: 'entry', text: '', name: '', value: '' });
  for (const [k, l] of settings) {
    if (k.startsWith('command:') || l.kind !== 'entry') continue;
    if (accounted.has(`${l.file}\n${l.line}`)) continue;
    const reason = DROPPED[l.name];
    record(l, 'dropped', reason ?? 'not an nrpe option (nrpe warns "Unknown option" and ignores it)');
  }
  const order = new Map<string, number>();
  for (const l of read.lines) if (!order.has(l.file)) order.set(l.file, order.size);
  changes.sort((a, b) => (order.get(a.file ?? file) ?? 0) - (order.get(b.file ?? file) ?? 0) || a.line - b.line);
  const counted = read.lines.map((l) => ({
    file: l.file,
    line: l.line,
    setting: l.kind === 'entry' || l.kind === 'bad',
  }));
  return { header: [], sections: [...sections.values()], changes, unsupportedModules: [], counted };
}
