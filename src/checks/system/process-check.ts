/**
 * check_process. With `process=NAME` (repeatable) there is one item per
 * name, aggregating every running process of that name (matched against the
 * kernel name, the executable's base name and argv[0]'s base name), and a
 * `stopped` item when none runs. Without it, one item per process.
 */
import { basename } from 'node:path';
import type { CheckDefinition } from '../engine.js';
import { listProcesses, type ProcessInfo } from './processes.js';

export function processCheck(root?: string): CheckDefinition {
  return {
    name: 'check_process',
    title: 'Processes',
    description: 'Processes by name: running or stopped, how many, their memory.',
    options: {
      process: {
        description: 'A process name to check; may be repeated. Without it every process is an item.',
        repeat: true,
      },
    },
    vars: {
      name: { kind: 'string', description: 'Process name (as asked for with process=).' },
      exe: { kind: 'string', description: 'Executable base name.' },
      command_line: { kind: 'string', description: 'Command line of the first process.' },
      state: { kind: 'string', description: "'started' or 'stopped'." },
      pid: { kind: 'number', description: 'Process id (the lowest one for a name); 0 when stopped.' },
      pids: { kind: 'string', description: 'Every process id, comma-separated.' },
      running: { kind: 'number', description: 'How many processes run under this name.' },
      memory: { kind: 'size', description: 'Resident memory in bytes, summed over the processes.' },
      virtual: { kind: 'size', description: 'Virtual memory in bytes, summed.' },
      threads: { kind: 'number', description: 'Threads, summed.' },
      requested: { kind: 'bool', description: 'True when the item was asked for with process=.' },
    },
    defaults: {
      critical: "state = 'stopped'",
      topSyntax: '${status}: ${problem_list}',
      okSyntax: '%(status): all processes are ok.',
      detailSyntax: '${name}=${state}',
      emptySyntax: '%(status): No processes found',
      emptyState: 'unknown',
    },
    async collect(args) {
      const wanted = args
        .all('process')
        .flatMap((p) => p.split(','))
        .map((p) => p.trim())
        .filter(Boolean);
      const procs = await listProcesses(root);
      if (wanted.length === 0) return procs.map((p) => aggregate(p.name, [p], false));
      return wanted.map((name) =>
        aggregate(
          name,
          procs.filter((p) => matches(p, name)),
          true,
        ),
      );
    },
    perf: (item) =>
      item.requested
        ? [
            { object: String(item.name), key: 'running', alias: `${item.name} running`, minimum: 0 },
            { object: String(item.name), key: 'memory', alias: `${item.name} memory`, minimum: 0 },
          ]
        : [],
  };
}

/** The kernel name first; the executable and argv[0] (each read on first use) only when it differs. */
function matches(p: ProcessInfo, name: string): boolean {
  return p.name === name || p.exe === name || basename(p.commandLine.split(' ')[0] ?? '') === name;
}

/**
 * The values of one item. `exe`, `command_line`, `memory` and `virtual` are
 * getters: a process's executable, command line and memory are read only
 * when an expression, the perf data or the output names them (processes.ts).
 */
function aggregate(name: string, procs: ProcessInfo[], requested: boolean): Record<string, string | number | boolean> {
  const sorted = [...procs].sort((a, b) => a.pid - b.pid);
  const first = sorted[0];
  return {
    name,
    get exe() {
      return first?.exe ?? '';
    },
    get command_line() {
      return first?.commandLine ?? '';
    },
    state: sorted.length > 0 ? 'started' : 'stopped',
    pid: first?.pid ?? 0,
    pids: sorted.map((p) => p.pid).join(','),
    running: sorted.length,
    get memory() {
      return sorted.reduce((a, p) => a + p.rss, 0);
    },
    get virtual() {
      return sorted.reduce((a, p) => a + p.virtual, 0);
    },
    threads: sorted.reduce((a, p) => a + p.threads, 0),
    requested,
  };
}
