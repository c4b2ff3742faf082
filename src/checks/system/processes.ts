/**
 * The process table from /proc/<pid>/status and /proc/<pid>/cmdline.
 * Processes that vanish while being read are skipped; a status file that
 * cannot be read at all makes the process `unreadable` rather than an error.
 */
import { readdir, readFile, readlink } from 'node:fs/promises';
import { basename, join } from 'node:path';

export interface ProcessInfo {
  pid: number;
  /** Short name: the kernel's comm (at most 15 characters). */
  name: string;
  /** Base name of the executable (argv[0] when the link cannot be read). */
  exe: string;
  commandLine: string;
  /** Kernel state letter word: running, sleeping, zombie, ... */
  state: string;
  threads: number;
  /** Resident memory in bytes. */
  rss: number;
  /** Virtual memory in bytes. */
  virtual: number;
}

/** Every process visible in /proc. */
export async function listProcesses(root = '/proc'): Promise<ProcessInfo[]> {
  const entries = await readdir(root);
  const pids = entries.filter((e) => /^\d+$/.test(e)).map(Number);
  const out = await Promise.all(pids.map((pid) => readProcess(root, pid)));
  return out.filter((p): p is ProcessInfo => p !== undefined);
}

/** One process, or undefined when it is gone. */
export async function readProcess(root: string, pid: number): Promise<ProcessInfo | undefined> {
  const dir = join(root, String(pid));
  let status: string;
  try {
    status = await readFile(join(dir, 'status'), 'utf8');
  } catch {
    return undefined;
  }
  const field = (name: string): string | undefined => fieldPattern(name).exec(status)?.[1]?.trim();
  const kb = (name: string): number => {
    const v = field(name);
    return v ? Number(v.split(/\s+/)[0]) * 1024 : 0;
  };
  let commandLine = '';
  try {
    commandLine = (await readFile(join(dir, 'cmdline'), 'utf8')).replace(/\0+$/, '').replace(/\0/g, ' ');
  } catch {
    // Gone or hidden: keep the name from status.
  }
  let exe: string;
  try {
    exe = basename(await readlink(join(dir, 'exe')));
  } catch {
    exe = commandLine ? basename(commandLine.split(' ')[0] ?? '') : '';
  }
  const name = field('Name') ?? String(pid);
  const stateWord = /\(([^)]+)\)/.exec(field('State') ?? '')?.[1] ?? 'unknown';
  return {
    pid,
    name,
    exe: exe || name,
    commandLine,
    state: stateWord,
    threads: Number(field('Threads') ?? 0),
    rss: kb('VmRSS'),
    virtual: kb('VmSize'),
  };
}

/** `^Name:\s*(.*)$` of /proc/<pid>/status, compiled once per field name, not per process. */
const FIELD_PATTERNS = new Map<string, RegExp>();
function fieldPattern(name: string): RegExp {
  let re = FIELD_PATTERNS.get(name);
  if (!re) {
    re = new RegExp(`^${name}:\\s*(.*)$`, 'm');
    FIELD_PATTERNS.set(name, re);
  }
  return re;
}
