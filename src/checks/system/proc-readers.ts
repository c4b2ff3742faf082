/**
 * Readers of the Linux /proc files the system checks use. Each returns
 * plain numbers in base units (bytes, seconds, clock ticks) and throws a
 * clear Error when the file is missing or does not parse. The root is a
 * parameter so that tests can point it at a copy. The /proc files are read
 * synchronously (proc-text.ts says why).
 */
import { readProcText } from './proc-text.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inRange } from '../../in-range.js';

/** Cumulative CPU time of one line of /proc/stat, in clock ticks. */
export interface CpuTimes {
  /** `total` for the aggregate line, `core0`, `core1`, ... for the others. */
  core: string;
  user: number;
  nice: number;
  system: number;
  idle: number;
  iowait: number;
  irq: number;
  softirq: number;
  steal: number;
}

/** Every `cpu` line of /proc/stat (the check_cpu sampler reads it every second of the agent's life). */
export function readCpuTimes(root = '/proc'): CpuTimes[] {
  const file = join(root, 'stat');
  const out = parseCpuTimes(readProcText(file));
  if (out.length === 0) throw new Error(`no cpu lines in ${file}`);
  return out;
}

/** The `cpu` lines at the top of /proc/stat's text (the kernel writes them first; parsing stops at the first other line). */
function parseCpuTimes(text: string): CpuTimes[] {
  const out: CpuTimes[] = [];
  let pos = 0;
  while (text.startsWith('cpu', pos)) {
    const nl = text.indexOf('\n', pos);
    const line = text.slice(pos, nl === -1 ? text.length : nl);
    pos = nl === -1 ? text.length : nl + 1;
    const m = /^cpu(\d*)\s+(.*)$/.exec(line);
    if (!m) continue;
    const f = inRange(m, 2).trim().split(/\s+/).map(Number);
    const at = (i: number): number => {
      const v = f[i];
      return v !== undefined && Number.isFinite(v) ? v : 0;
    };
    out.push({
      core: m[1] === '' ? 'total' : `core${m[1]}`,
      user: at(0),
      nice: at(1),
      system: at(2),
      idle: at(3),
      iowait: at(4),
      irq: at(5),
      softirq: at(6),
      steal: at(7),
    });
  }
  return out;
}

/** /proc/meminfo as bytes, keyed by the file's names (MemTotal, MemAvailable, SwapTotal, ...). */
export function readMeminfo(root = '/proc'): Record<string, number> {
  const text = readProcText(join(root, 'meminfo'));
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z0-9_()]+):\s+(\d+)(?:\s+kB)?/.exec(line);
    if (m) out[inRange(m, 1)] = Number(m[2]) * (line.includes('kB') ? 1024 : 1);
  }
  if (out.MemTotal === undefined) throw new Error(`no MemTotal in ${join(root, 'meminfo')}`);
  return out;
}

/** Load averages over 1, 5 and 15 minutes from /proc/loadavg. */
export function readLoadavg(root = '/proc'): { m1: number; m5: number; m15: number } {
  const text = readProcText(join(root, 'loadavg'));
  const [a, b, c] = text.trim().split(/\s+/).map(Number);
  if (a === undefined || b === undefined || c === undefined || ![a, b, c].every((n) => Number.isFinite(n)))
    throw new Error(`cannot parse ${join(root, 'loadavg')}: ${text.trim()}`);
  return { m1: a, m5: b, m15: c };
}

/** Seconds since boot from /proc/uptime. */
export function readUptime(root = '/proc'): number {
  const text = readProcText(join(root, 'uptime'));
  const n = Number(text.trim().split(/\s+/)[0]);
  if (!Number.isFinite(n)) throw new Error(`cannot parse ${join(root, 'uptime')}: ${text.trim()}`);
  return n;
}

/** Fields of /etc/os-release (NAME, VERSION_ID, PRETTY_NAME, ...); empty when the file is missing. */
export async function readOsRelease(file = '/etc/os-release'): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return {};
  }
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) out[inRange(m, 1)] = inRange(m, 2).replace(/^(["'])(.*)\1$/, '$2');
  }
  return out;
}
