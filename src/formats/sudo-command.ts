/**
 * Command lines that run `sudo`, and whether sudo can work in this process.
 *
 * sudo is set-uid root: under `NoNewPrivileges` (the packaged unit sets
 * `NoNewPrivileges=yes`; `setpriv --no-new-privs` does the same) the kernel
 * does not honour the set-uid bit, and sudo stops with `sudo: The "no new
 * privileges" flag is set, which prevents sudo from running as root.` on
 * stderr. Settings validation warns about such command lines
 * (AGENT_WARN_SUDO_NO_NEW_PRIVILEGES), the import prints the sudoers lines
 * for the agent's user, and an NRPE command whose sudo failed that way names
 * the fix in its answer.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The user the package runs the agent as; nrpe's sudoers lines name `nagios`. */
export const SERVICE_USER = 'config-agent';
/** The opt-in drop-in the package ships, and where it is copied to. */
export const ALLOW_SUDO_DROP_IN = '/usr/share/config-agent/allow-sudo.conf';
export const UNIT_DROP_IN_FOLDER = '/etc/systemd/system/config-agent.service.d';

/** sudo options that take a value as the next word (sudo(8)). */
const WITH_VALUE = new Set(['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-R', '-T']);

/** A command a line runs through sudo: the program (absolute as written) and the user it runs as. */
export interface SudoUse {
  program: string;
  user: string;
}

/**
 * The commands `line` runs through sudo, read from its words: a word
 * `sudo` (or a path ending in `/sudo`) at the start of the line or after a
 * shell separator (`;`, `&&`, `||`, `|`, `(`, or the opening quote of `sh
 * -c '…'`), then its options, then the program. Empty when it runs none.
 */
export function sudoUses(line: string): SudoUse[] {
  const uses: SudoUse[] = [];
  const words = line.split(/\s+/).filter((w) => w !== '');
  for (let i = 0; i < words.length; i++) {
    const raw = words[i] ?? '';
    const prev = words[i - 1];
    const atCommand = prev === undefined || prev === '-c' || /(?:;|&&|\|)$/.test(prev) || raw.startsWith('(');
    if (!atCommand || !/^(?:\S*\/)?sudo$/.test(raw.replace(/^[('"]+/, ''))) continue;
    let user = 'root';
    let j = i + 1;
    for (; j < words.length; j++) {
      const w = words[j] ?? '';
      if (w === '--') {
        j++;
        break;
      }
      if (!w.startsWith('-')) break;
      if (w === '-u') user = words[j + 1] ?? user;
      else if (w.startsWith('-u')) user = w.slice(2);
      if (WITH_VALUE.has(w)) j++;
    }
    const program = (words[j] ?? '').replace(/[;'")]+$/, '');
    if (program !== '') uses.push({ program, user });
    i = j;
  }
  return uses;
}

/** The sudoers line that lets the agent's user run these commands as nrpe's user ran them. */
export function sudoersLine(uses: readonly SudoUse[], user = SERVICE_USER): string[] {
  const byUser = new Map<string, Set<string>>();
  for (const u of uses) {
    const set = byUser.get(u.user) ?? new Set<string>();
    set.add(u.program);
    byUser.set(u.user, set);
  }
  return [...byUser].map(([runAs, programs]) => `${user} ALL=(${runAs}) NOPASSWD: ${[...programs].sort().join(', ')}`);
}

let processFlag: boolean | undefined;

/** True when this process runs with no_new_privs (`NoNewPrivs: 1` in /proc/self/status). */
export function processHasNoNewPrivileges(): boolean {
  if (processFlag === undefined) {
    try {
      processFlag = /^NoNewPrivs:\s*1\s*$/m.test(readFileSync('/proc/self/status', 'utf8'));
    } catch {
      processFlag = false;
    }
  }
  return processFlag;
}

/**
 * Why sudo cannot run for the service, or undefined: this process has
 * no_new_privs, or the installed unit sets NoNewPrivileges=yes and no
 * drop-in of /etc/systemd/system/config-agent.service.d/ lifts it (so a
 * `settings validate` run by root in a shell still warns for the service).
 */
export function sudoBlockedBecause(): string | undefined {
  if (processHasNoNewPrivileges()) return 'this process runs with no_new_privs (NoNewPrivs: 1 in /proc/self/status)';
  const unit = [
    '/etc/systemd/system/config-agent.service',
    '/usr/lib/systemd/system/config-agent.service',
    '/lib/systemd/system/config-agent.service',
  ]
    .map(readText)
    .find((t) => t !== undefined);
  if (unit === undefined) return undefined;
  let names: string[] = [];
  try {
    names = readdirSync(UNIT_DROP_IN_FOLDER).filter((n) => n.endsWith('.conf'));
  } catch {
    // No drop-in folder: the unit's settings stand.
  }
  const left = unliftedOptions(
    unit,
    names.map((n) => readText(join(UNIT_DROP_IN_FOLDER, n)) ?? ''),
  );
  if (left.length === 0) return undefined;
  return left.includes('NoNewPrivileges')
    ? 'the config-agent.service unit sets NoNewPrivileges=yes'
    : `the config-agent.service unit sets ${left.join(', ')}, each of which makes systemd set no_new_privs for the service`;
}

/** The unit options after which systemd runs a non-root service with no_new_privs (allow-sudo.conf lifts them all). */
const NO_NEW_PRIVS_OPTIONS = [
  'NoNewPrivileges',
  'SystemCallFilter',
  'SystemCallArchitectures',
  'RestrictAddressFamilies',
  'RestrictNamespaces',
  'RestrictRealtime',
  'RestrictSUIDSGID',
  'LockPersonality',
  'PrivateDevices',
  'ProtectClock',
  'ProtectHostname',
  'ProtectKernelLogs',
  'ProtectKernelModules',
  'ProtectKernelTunables',
];

/**
 * The options of `unit` that make systemd run a non-root service with no_new_privs (not only
 * NoNewPrivileges=: each seccomp-based one too, as tried on systemd 252) and that none of `dropIns`
 * turns off or empties (the last word on an option wins, drop-ins after the unit).
 */
export function unliftedOptions(unit: string, dropIns: readonly string[]): string[] {
  const all = [unit, ...dropIns].join('\n');
  return NO_NEW_PRIVS_OPTIONS.filter((o) => {
    const inUnit = lastValue(unit, o);
    if (inUnit === undefined || OFF.test(inUnit)) return false;
    const last = lastValue(all, o);
    return last === undefined || !OFF.test(last);
  });
}

const OFF = /^(no|false|off|0|)$/i;

/** The value of the last `option=` line of a unit text, or undefined. */
function lastValue(text: string, option: string): string | undefined {
  let last: string | undefined;
  for (const hit of text.matchAll(new RegExp(`^[ \\t]*${option}[ \\t]*=[ \\t]*(.*?)[ \\t]*$`, 'gim'))) last = hit[1];
  return last;
}

/** What lets sudo run for the service, in one sentence. */
export function sudoFix(): string {
  return `copy ${ALLOW_SUDO_DROP_IN} to ${UNIT_DROP_IN_FOLDER}/ (then systemctl daemon-reload; systemctl restart config-agent) and give the user ${SERVICE_USER} the sudoers line nagios had (settings import prints it), or run the command without sudo`;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
