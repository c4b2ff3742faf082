/**
 * Parsers and readers of the kernel's counter files that the rate checks
 * use: /proc/net/dev, /proc/stat, /proc/vmstat, /proc/diskstats,
 * /proc/swaps. Parsers take the file's text (tests feed recorded copies);
 * readers take the proc root. Counters come back as plain numbers in the
 * kernel's units (bytes, packets, clock ticks, sectors converted to bytes).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CpuTimes } from './proc-readers.js';
import { firstN, inRange } from '../../in-range.js';

export interface InterfaceCounters {
  name: string;
  rxBytes: number;
  rxPackets: number;
  rxErrors: number;
  rxDrops: number;
  txBytes: number;
  txPackets: number;
  txErrors: number;
  txDrops: number;
}

/** /proc/net/dev: one row per interface, paired by name (never by position). */
export function parseNetDev(text: string): InterfaceCounters[] {
  const out: InterfaceCounters[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*([^:\s]+):\s*(.*)$/.exec(line);
    if (!m) continue;
    const f = firstN(inRange(m, 2).trim().split(/\s+/).map(Number), 16);
    if (!f || f.some((n) => !Number.isFinite(n))) continue;
    out.push({
      name: inRange(m, 1),
      rxBytes: f[0],
      rxPackets: f[1],
      rxErrors: f[2],
      rxDrops: f[3],
      txBytes: f[8],
      txPackets: f[9],
      txErrors: f[10],
      txDrops: f[11],
    });
  }
  return out;
}

export async function readNetDev(proc: string): Promise<InterfaceCounters[]> {
  return parseNetDev(await readFile(join(proc, 'net', 'dev'), 'utf8'));
}

/** The aggregate `cpu` line of /proc/stat in clock ticks (check_cpu's CpuTimes), with guest and guest_nice. */
export interface CpuModeTicks extends Omit<CpuTimes, 'core'> {
  guest: number;
  guestNice: number;
}

export interface KernelStat {
  cpu: CpuModeTicks;
  /** Logical CPUs (cpuN lines). */
  cores: number;
  /** Context switches since boot. */
  ctxt: number;
  /** Forks since boot. */
  processes: number;
  procsRunning: number;
  procsBlocked: number;
}

export function parseKernelStat(text: string): KernelStat {
  let cpu: CpuModeTicks | undefined;
  let cores = 0;
  const fields: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const parts = line.trim().split(/\s+/);
    const key = parts[0] ?? '';
    if (key === 'cpu') {
      const n = parts.slice(1).map(Number);
      const at = (i: number): number => {
        const v = n[i];
        return v !== undefined && Number.isFinite(v) ? v : 0;
      };
      cpu = {
        user: at(0),
        nice: at(1),
        system: at(2),
        idle: at(3),
        iowait: at(4),
        irq: at(5),
        softirq: at(6),
        steal: at(7),
        guest: at(8),
        guestNice: at(9),
      };
    } else if (/^cpu\d+$/.test(key)) cores++;
    else if (parts.length === 2 && Number.isFinite(Number(parts[1]))) fields[key] = Number(parts[1]);
  }
  if (!cpu) throw new Error('no aggregate cpu line in /proc/stat');
  return {
    cpu,
    cores: Math.max(cores, 1),
    ctxt: fields.ctxt ?? 0,
    processes: fields.processes ?? 0,
    procsRunning: fields.procs_running ?? 0,
    procsBlocked: fields.procs_blocked ?? 0,
  };
}

export async function readKernelStat(proc: string): Promise<KernelStat> {
  return parseKernelStat(await readFile(join(proc, 'stat'), 'utf8'));
}

/** /proc/vmstat as name -> value. */
export function parseVmstat(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [k, v] = line.trim().split(/\s+/);
    if (k && v !== undefined && Number.isFinite(Number(v))) out.set(k, Number(v));
  }
  return out;
}

export async function readVmstat(proc: string): Promise<Map<string, number>> {
  return parseVmstat(await readFile(join(proc, 'vmstat'), 'utf8'));
}

export interface SwapDevice {
  name: string;
  type: string;
  /** Bytes. */
  size: number;
  used: number;
  priority: number;
}

/** /proc/swaps: the data lines after the header. */
export function parseSwaps(text: string): SwapDevice[] {
  return text
    .split('\n')
    .slice(1)
    .map((l) => firstN(l.trim().split(/\s+/), 5))
    .filter((f) => f !== undefined)
    .map((f) => ({
      name: f[0].replace(/\\040/g, ' '),
      type: f[1],
      size: Number(f[2]) * 1024,
      used: Number(f[3]) * 1024,
      priority: Number(f[4]),
    }));
}

export interface DiskCounters {
  major: number;
  minor: number;
  name: string;
  reads: number;
  readBytes: number;
  readMs: number;
  writes: number;
  writeBytes: number;
  writeMs: number;
  inProgress: number;
  ioMs: number;
  weightedMs: number;
}

/** /proc/diskstats; sectors are 512 bytes whatever the device's block size. */
export function parseDiskstats(text: string): DiskCounters[] {
  const out: DiskCounters[] = [];
  for (const line of text.split('\n')) {
    const f = firstN(line.trim().split(/\s+/), 14);
    if (!f) continue;
    const n = (i: number): number => Number(f[i]);
    out.push({
      major: n(0),
      minor: n(1),
      name: f[2],
      reads: n(3),
      readBytes: n(5) * 512,
      readMs: n(6),
      writes: n(7),
      writeBytes: n(9) * 512,
      writeMs: n(10),
      inProgress: n(11),
      ioMs: n(12),
      weightedMs: n(13),
    });
  }
  return out;
}

export async function readDiskstats(proc: string): Promise<DiskCounters[]> {
  return parseDiskstats(await readFile(join(proc, 'diskstats'), 'utf8'));
}
