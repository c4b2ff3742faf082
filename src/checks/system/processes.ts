/**
 * The process table from /proc/<pid>/stat: name, state and threads in one
 * line per process. The executable (/proc/<pid>/exe), the command line
 * (/proc/<pid>/cmdline) and the memory (/proc/<pid>/status) are read only
 * when something asks for them (a `process=` match, an expression or an
 * output that names them), then kept.
 *
 * The files are read synchronously (proc-text.ts): the asynchronous reads
 * made check_process slower than forking check_procs. A turn of
 * the event loop reads at most BATCH processes, so a host with thousands of
 * them does not hold the loop for long. Processes that vanish while being
 * read are skipped.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { readProcText } from './proc-text.js';
import { basename, join } from 'node:path';
import { pageSize } from './page-size.js';

export interface ProcessInfo {
  pid: number;
  /** Short name: the kernel's comm (at most 15 characters). */
  readonly name: string;
  /** Base name of the executable (argv[0] when the link cannot be read). Read on first use. */
  readonly exe: string;
  /** The command line, arguments separated by blanks. Read on first use. */
  readonly commandLine: string;
  /** Kernel state word: running, sleeping, zombie, ... */
  readonly state: string;
  readonly threads: number;
  /** Resident memory in bytes (VmRSS of /proc/<pid>/status, exact where stat's count is per-CPU approximate). Read on first use. */
  readonly rss: number;
  /** Virtual memory in bytes (VmSize). Read on first use, with rss. */
  readonly virtual: number;
}

/** The memory lines of /proc/<pid>/status, in kB (compiled once, not per process). */
const VM_RSS = /^VmRSS:\s*(\d+)/m;
const VM_SIZE = /^VmSize:\s*(\d+)/m;

/** Processes read per turn of the event loop. */
const BATCH = 128;

/** The kernel's words for the state letters of /proc/<pid>/stat (fs/proc/array.c), as /proc/<pid>/status shows them. */
const STATES: Readonly<Record<string, string>> = {
  R: 'running',
  S: 'sleeping',
  D: 'disk sleep',
  T: 'stopped',
  t: 'tracing stop',
  X: 'dead',
  Z: 'zombie',
  P: 'parked',
  I: 'idle',
};

/** Every process visible in /proc. */
export async function listProcesses(root = '/proc'): Promise<ProcessInfo[]> {
  const pids = readdirSync(root)
    .filter((e) => /^\d+$/.test(e))
    .map(Number);
  const out: ProcessInfo[] = [];
  for (let i = 0; i < pids.length; i += BATCH) {
    if (i > 0) await new Promise((r) => setImmediate(r));
    for (const pid of pids.slice(i, i + BATCH)) {
      const p = readProcess(root, pid);
      if (p) out.push(p);
    }
  }
  return out;
}

/** One process, or undefined when it is gone. */
export function readProcess(root: string, pid: number): ProcessInfo | undefined {
  const dir = join(root, String(pid));
  const stat = readOptional(join(dir, 'stat'));
  if (stat === undefined) return undefined;
  // `pid (comm) state ppid …`: comm may hold blanks and parentheses, so it ends at the last ')'.
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  if (open === -1 || close < open) return undefined;
  const name = stat.slice(open + 1, close);
  // Fields after the comm, from the state (field 3 of proc(5)): threads is field 20, vsize 23, rss 24 (pages).
  const f = stat.slice(close + 2).split(' ');
  const field = (n: number): number => Number(f[n - 3] ?? 0) || 0;
  let commandLine: string | undefined;
  let exe: string | undefined;
  let memory: { rss: number; virtual: number } | undefined;
  const readMemory = (): { rss: number; virtual: number } => {
    if (memory) return memory;
    const status = readOptional(join(dir, 'status'));
    const kb = (pattern: RegExp): number => Number(pattern.exec(status ?? '')?.[1] ?? 0) * 1024;
    // A process that is gone by now, or a kernel thread (no Vm lines): what stat said.
    memory = status?.includes('VmRSS:')
      ? { rss: kb(VM_RSS), virtual: kb(VM_SIZE) }
      : { rss: field(24) * pageSize(), virtual: field(23) };
    return memory;
  };
  const readCommandLine = (): string =>
    (commandLine ??= (readOptional(join(dir, 'cmdline')) ?? '').replace(/\0+$/, '').replace(/\0/g, ' '));
  return {
    pid,
    name,
    get commandLine() {
      return readCommandLine();
    },
    get exe() {
      if (exe === undefined) {
        try {
          exe = basename(readlinkSync(join(dir, 'exe')));
        } catch {
          // Gone, a kernel thread or another user's: argv[0] as the shell would show it.
          const line = readCommandLine();
          exe = line ? basename(line.split(' ')[0] ?? '') : '';
        }
        exe ||= name;
      }
      return exe;
    },
    state: STATES[f[0] ?? ''] ?? 'unknown',
    threads: field(20),
    get rss() {
      return readMemory().rss;
    },
    get virtual() {
      return readMemory().virtual;
    },
  };
}

/** The text of a /proc file of a process, or undefined when it cannot be read (the process is gone). */
function readOptional(file: string): string | undefined {
  try {
    return readProcText(file);
  } catch {
    return undefined;
  }
}
