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

/**
 * CPU time of a process and every descendant alive now (nginx's workers,
 * fcgiwrap's children), each with the children it waited for: a child that
 * exited counts once, in its parent's figure.
 */
export function treeCpuMs(pid: number): number {
  let total = 0;
  const todo = [pid];
  for (let p = todo.pop(); p !== undefined; p = todo.pop()) {
    try {
      total += processCpuMs(p);
    } catch {
      continue; // exited meanwhile: its time is in its parent's figure
    }
    todo.push(...childrenOf(p));
  }
  return total;
}

/** The process ids of a process's children now (/proc/PID/task/PID/children); none when it is gone. */
export function childrenOf(pid: number): number[] {
  try {
    const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return text === '' ? [] : text.split(' ').map(Number);
  } catch {
    return [];
  }
}
