/**
 * What each check_nt command asks the agent and how the result becomes the
 * answer check_nt reads, as NSClient++ maps them onto its own queries:
 *
 *   CPULOAD N      check_cpu time=Nm          busy percent of the total over N minutes, followed by
 *                                             ` (1 of 5 minutes)` while the history covers less of the window
 *   UPTIME         check_uptime               seconds since boot
 *   USEDDISKSPACE  check_drivesize drive=…    FREE&TOTAL bytes (a letter of `drive letters`, or a mount point;
 *                                             any other path, existing or not, answers as an unknown letter)
 *   MEMUSE         check_memory physical+swap TOTAL&USED bytes (RAM and swap: Windows' commit limit and charge)
 *   SERVICESTATE   check_service service=…    STATUS& TEXT (systemd units)
 *   PROCSTATE      check_process process=…    STATUS& TEXT
 *   FILEAGE        check_files path=… pattern  MINUTES&PATH WRITTEN
 *
 * Numbers come from the structured performance data (bytes by perf-config),
 * never from text meant for people. A query that could not answer becomes
 * `ERROR: …`, which check_nt prints as UNKNOWN. The module runs the query
 * (through the core, so the checks' own limits apply: FILEAGE reads only
 * under [/settings/disk] allowed paths).
 */
import { basename, dirname, isAbsolute, normalize } from 'node:path';
import type { PerfValue, QueryResult } from '../../core/result.js';
import type { NsClientCommand } from './request.js';

/** A command mapped onto a query of the agent. */
export interface Mapped {
  query: string;
  args: string[];
  /** The check_nt answer from the query's result. */
  answer(r: QueryResult): string;
}

export interface MapOptions {
  /** `drive letters`: upper-case letter -> mount point. */
  driveLetters: ReadonlyMap<string, string>;
  /** The longest CPU window the agent keeps, in minutes. */
  maxCpuMinutes: number;
  /** Seconds since the epoch (FILEAGE). */
  now: () => number;
}

/** The query for a command and its arguments, or the ERROR answer when the arguments cannot be used. */
export function mapCommand(command: NsClientCommand, args: readonly string[], o: MapOptions): Mapped | string {
  switch (command) {
    case 'cpuload':
      return cpuLoad(args, o);
    case 'uptime':
      return {
        query: 'check_uptime',
        args: ['warn=none', 'crit=none'],
        answer: (r) =>
          perfNumber(
            r,
            (q) => q.perf.find((p) => p.alias === 'uptime'),
            (v) => String(Math.floor(v)),
          ),
      };
    case 'useddiskspace':
      return diskSpace(args, o);
    case 'memuse':
      return {
        query: 'check_memory',
        args: ['type=physical', 'type=swap', 'perf-config=*(unit:B)', 'warn=none', 'crit=none'],
        answer: (r) => {
          const mem = r.perf.filter(
            (p) => (p.alias === 'physical' || p.alias === 'swap') && typeof p.value === 'number',
          );
          if (mem.length === 0) return failure(r);
          const total = mem.reduce((n, p) => n + (p.maximum ?? 0), 0);
          const used = mem.reduce((n, p) => n + (p.value as number), 0);
          return `${Math.round(total)}&${Math.round(used)}`;
        },
      };
    case 'servicestate':
      return stateList('check_service', 'service', args, 'OK: All services are in their appropriate state.');
    case 'procstate':
      return stateList('check_process', 'process', args, 'OK: All processes are running.');
    case 'fileage':
      return fileAge(args, o);
    case 'counter':
    case 'instances':
      return `ERROR: ${command.toUpperCase()} reads Windows performance counters, which a Linux host does not have; use CPULOAD, MEMUSE, USEDDISKSPACE, or NRPE and the agent's checks`;
    case 'clientversion':
      return 'ERROR: CLIENTVERSION is answered by the server';
  }
}

// ---------------------------------------------------------------- helpers

function cpuLoad(args: readonly string[], o: MapOptions): Mapped | string {
  const windows = args.filter((a) => a !== '');
  if (windows.length === 0) return 'ERROR: CPULOAD needs a number of minutes (check_nt -l MINUTES,WARN,CRIT)';
  for (const w of windows) {
    if (!/^\d{1,5}$/.test(w) || Number(w) < 1) return `ERROR: CPULOAD ${w.slice(0, 20)} is not a number of minutes`;
    if (Number(w) > o.maxCpuMinutes)
      return `ERROR: CPU load is kept for ${o.maxCpuMinutes} minutes here; ask for at most ${o.maxCpuMinutes} (check_nt -l ${o.maxCpuMinutes},WARN,CRIT)`;
  }
  // As NSClient++: every window is asked for, the first one answers. Just after the agent
  // started, check_cpu measures one fresh interval instead (`total 500ms`): that one answers.
  const minutes = Number(windows[0]);
  const first = `total ${minutes}m`;
  const pick = (r: QueryResult): PerfValue | undefined =>
    r.perf.find((p) => p.alias === first) ?? r.perf.find((p) => p.alias.startsWith('total '));
  return {
    query: 'check_cpu',
    // The message lists each window with the seconds of it the history covers (`5m=60, 15m=60`).
    args: [
      ...windows.map((w) => `time=${w}m`),
      'warn=none',
      'crit=none',
      'top-syntax=%(list)',
      'ok-syntax=%(list)',
      'detail-syntax=%(time)=%(covered)',
    ],
    answer: (r) => perfNumber(r, pick, (v) => `${Math.round(v)}${coverage(r.message, pick(r), minutes)}`),
  };
}

/**
 * ` (1 of 5 minutes)` while the agent's history covers only part of the window (after a start),
 * else ''. check_nt reads the number before it (strtoul) and shows its own text, so the note
 * reaches whoever reads the answer itself and costs check_nt nothing.
 */
function coverage(message: string, p: PerfValue | undefined, minutes: number): string {
  const label = p?.alias.slice('total '.length);
  const entry = message.split(', ').find((e) => e.startsWith(`${label}=`));
  const covered = Number(entry?.slice(`${label}=`.length));
  if (label === undefined || !Number.isFinite(covered) || covered >= minutes * 60) return '';
  const of = `of ${minutes} minute${minutes === 1 ? '' : 's'}`;
  return covered < 60 ? ` (${Math.floor(covered * 10) / 10} s ${of})` : ` (${Math.floor(covered / 60)} ${of})`;
}

function diskSpace(args: readonly string[], o: MapOptions): Mapped | string {
  const drive = args[0] ?? '';
  const path = isAbsolute(drive) ? withoutTrailingSlash(normalize(drive)) : undefined;
  const mount = path ?? o.driveLetters.get(drive.replace(/:\\?$/, '').toUpperCase());
  const known = [...o.driveLetters].map(([l, m]) => `${l}=${m}`).join(', ') || 'none';
  // One answer for a letter not configured and for a path that is not a mount point, whether it exists or not.
  const refused = `ERROR: drive ${drive.slice(0, 20) || '(none)'} is neither in drive letters (${known}) nor a mount point`;
  if (mount === undefined) return refused;
  return {
    query: 'check_drivesize',
    // The message names the mount point that holds the drive (%(mount)): a path is answered only when it is one.
    args: [
      `drive=${mount}`,
      'filter=none',
      'perf-config=*(unit:B)',
      'warn=none',
      'crit=none',
      'top-syntax=%(list)',
      'ok-syntax=%(list)',
      'detail-syntax=%(mount)',
    ],
    answer: (r) => {
      if (path !== undefined && r.message.trim() !== path) return refused;
      const used = r.perf.find(
        (p) => p.alias.endsWith(' used') && typeof p.value === 'number' && p.maximum !== undefined,
      );
      if (!used) return failure(r);
      const total = used.maximum as number;
      return `${Math.round(total - (used.value as number))}&${Math.round(total)}`;
    },
  };
}

function withoutTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function stateList(query: string, key: string, args: readonly string[], allGood: string): Mapped | string {
  let names = args.filter((a) => a !== '');
  // check_nt sends ShowAll (-d SHOWALL) or ShowFail before the names.
  const showAll = names[0] === 'ShowAll';
  if (showAll || names[0] === 'ShowFail') names = names.slice(1);
  if (names.length === 0)
    return `ERROR: ${key === 'service' ? 'SERVICESTATE' : 'PROCSTATE'} needs the ${key}es to check (check_nt -l NAME,NAME)`;
  const syntax = showAll
    ? ['top-syntax=${list}', 'ok-syntax=${list}']
    : ['top-syntax=${status}: ${problem_list}', `ok-syntax=${allGood}`];
  return {
    query,
    args: [...names.map((n) => `${key}=${n}`), 'detail-syntax=${name}: ${state}', 'filter=none', ...syntax],
    // check_nt reads the status before the `&` and prints what follows.
    answer: (r) => `${r.result}& ${oneLine(r.message)}`,
  };
}

function fileAge(args: readonly string[], o: MapOptions): Mapped | string {
  const path = args.join('&');
  if (!isAbsolute(path)) return 'ERROR: FILEAGE needs the absolute path of a file (check_nt -l PATH)';
  if (/[*?[\]{}]/.test(basename(path))) return 'ERROR: FILEAGE takes one file, not a pattern';
  return {
    query: 'check_files',
    // The file, found in its folder (check_files walks folders): its write time is the answer.
    args: [
      `path=${dirname(path)}`,
      `pattern=${basename(path)}`,
      'max-depth=1',
      'top-syntax=${list}',
      'ok-syntax=${list}',
      'detail-syntax=${written}',
      'warn=none',
      'crit=none',
    ],
    answer: (r) => {
      const written = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)$/.exec(r.message.trim())?.[1];
      if (!written) return failure(r);
      const minutes = Math.max(0, Math.floor((o.now() - Date.parse(`${written.replace(' ', 'T')}Z`) / 1000) / 60));
      return `${minutes}&${path} ${written}`;
    },
  };
}

/** The perf value `pick` chooses, as `format` writes it; the query's failure when there is none. */
function perfNumber(
  r: QueryResult,
  pick: (r: QueryResult) => PerfValue | undefined,
  format: (v: number) => string,
): string {
  const p = pick(r);
  return p && typeof p.value === 'number' ? format(p.value) : failure(r);
}

function failure(r: QueryResult): string {
  return `ERROR: ${oneLine(r.message) || `${r.command} gave no value`}`;
}

function oneLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}
