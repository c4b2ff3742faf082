/**
 * CPU time of a process from /proc/<pid>/stat, for benchmarks: user +
 * system of the process itself, plus (unless `own`) of the children it has
 * waited for. Clock ticks of 10 ms (USER_HZ 100 on Linux).
 */
import { readFileSync } from 'node:fs';

export function processCpuMs(pid: number, own = false): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ');
  return ((Number(f[11]) + Number(f[12]) + (own ? 0 : Number(f[13]) + Number(f[14]))) * 1000) / 100;
}
