/**
 * The process metrics every Prometheus exporter has (the names of the
 * official client libraries): CPU seconds, resident and virtual memory,
 * open and maximum file descriptors, start time, Node's heap, event-loop
 * lag and garbage collections. The event-loop monitor and the GC observer
 * start on the first scrape and run for the life of the process (a timer
 * every 20 ms and one callback per GC); the lag figures cover the time
 * since the previous scrape that had a sample. A scrape with no sample since
 * (scrapes less than 20 ms apart) repeats the last measured figures, never a
 * false 0; until the monitor's first sample, the figures are the delay of
 * one turn of the event loop measured at the first scrape. node:perf_hooks (about ten of node's internal
 * modules) is loaded by the first scrape too, not at the agent's start.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { ELDHistogram } from 'node:perf_hooks';

const GC_BUCKETS = [0.001, 0.01, 0.1, 1, 2, 5];

interface GcHistogram {
  counts: number[];
  sum: number;
  count: number;
}

let lag: ELDHistogram | undefined;
/** The lag figures last measured, in nanoseconds: min, max, mean, p50, p99. */
let lastLag: [number, number, number, number, number] | undefined;
const gc = new Map<string, GcHistogram>();

function startMonitors(): void {
  if (lag) return;
  const { constants, monitorEventLoopDelay, PerformanceObserver } = process.getBuiltinModule('node:perf_hooks');
  const GC_KINDS: Record<number, string> = {
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
  };
  lag = monitorEventLoopDelay({ resolution: 20 });
  lag.enable();
  // A first measure at once: the delay of one turn of the loop (the monitor's first sample is 20 ms away).
  const asked = performance.now();
  setImmediate(() => {
    const ns = Math.max(1, Math.round((performance.now() - asked) * 1e6));
    lastLag ??= [ns, ns, ns, ns, ns];
  });
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = GC_KINDS[(entry as { detail?: { kind?: number } }).detail?.kind ?? -1] ?? 'other';
      let h = gc.get(kind);
      if (!h) gc.set(kind, (h = { counts: GC_BUCKETS.map(() => 0), sum: 0, count: 0 }));
      const seconds = entry.duration / 1000;
      GC_BUCKETS.forEach((b, i) => {
        if (seconds <= b) h.counts[i] = (h.counts[i] ?? 0) + 1;
      });
      h.sum += seconds;
      h.count++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
}

/** The exposition lines of the process metrics (Prometheus text format 0.0.4). */
export function renderProcessMetrics(out: string[]): void {
  startMonitors();
  const cpu = process.cpuUsage();
  const mem = process.memoryUsage();
  gauge(out, 'process_cpu_user_seconds_total', 'counter', 'User CPU time spent in seconds.', cpu.user / 1e6);
  gauge(out, 'process_cpu_system_seconds_total', 'counter', 'System CPU time spent in seconds.', cpu.system / 1e6);
  gauge(
    out,
    'process_cpu_seconds_total',
    'counter',
    'Total user and system CPU time spent in seconds.',
    (cpu.user + cpu.system) / 1e6,
  );
  gauge(
    out,
    'process_start_time_seconds',
    'gauge',
    'Start time of the process since unix epoch in seconds.',
    Math.round(process.getBuiltinModule('node:perf_hooks').performance.timeOrigin) / 1000,
  );
  gauge(out, 'process_resident_memory_bytes', 'gauge', 'Resident memory size in bytes.', mem.rss);
  const vsize = virtualMemoryBytes();
  if (vsize !== undefined) gauge(out, 'process_virtual_memory_bytes', 'gauge', 'Virtual memory size in bytes.', vsize);
  const fds = openFds();
  if (fds !== undefined) gauge(out, 'process_open_fds', 'gauge', 'Number of open file descriptors.', fds);
  const maxFds = maxOpenFds();
  if (maxFds !== undefined) gauge(out, 'process_max_fds', 'gauge', 'Maximum number of open file descriptors.', maxFds);
  gauge(out, 'nodejs_heap_size_total_bytes', 'gauge', 'Process heap size from Node.js in bytes.', mem.heapTotal);
  gauge(out, 'nodejs_heap_size_used_bytes', 'gauge', 'Process heap size used from Node.js in bytes.', mem.heapUsed);
  gauge(out, 'nodejs_external_memory_bytes', 'gauge', 'Node.js external memory size in bytes.', mem.external);
  const h = lag as ELDHistogram;
  if (h.count > 0) {
    lastLag = [h.min, h.max, h.mean, h.percentile(50), h.percentile(99)];
    h.reset();
  }
  // Nothing measured yet (the first scrape, before its first turn of the loop): no lag figures rather than zeros.
  if (lastLag) {
    const [minNs, maxNs, meanNs, p50Ns, p99Ns] = lastLag;
    const [min, max, mean, p50, p99] = [minNs / 1e9, maxNs / 1e9, meanNs / 1e9, p50Ns / 1e9, p99Ns / 1e9];
    gauge(
      out,
      'nodejs_eventloop_lag_min_seconds',
      'gauge',
      'The minimum recorded event loop delay since the previous scrape.',
      min,
    );
    gauge(
      out,
      'nodejs_eventloop_lag_max_seconds',
      'gauge',
      'The maximum recorded event loop delay since the previous scrape.',
      max,
    );
    gauge(
      out,
      'nodejs_eventloop_lag_mean_seconds',
      'gauge',
      'The mean of the recorded event loop delays since the previous scrape.',
      mean,
    );
    gauge(
      out,
      'nodejs_eventloop_lag_p50_seconds',
      'gauge',
      'The 50th percentile of the recorded event loop delays since the previous scrape.',
      p50,
    );
    gauge(
      out,
      'nodejs_eventloop_lag_p99_seconds',
      'gauge',
      'The 99th percentile of the recorded event loop delays since the previous scrape.',
      p99,
    );
  }
  out.push(
    '# HELP nodejs_gc_duration_seconds Garbage collection duration by kind, one of major, minor, incremental or weakcb.',
  );
  out.push('# TYPE nodejs_gc_duration_seconds histogram');
  for (const [kind, g] of gc) {
    GC_BUCKETS.forEach((b, i) =>
      out.push(`nodejs_gc_duration_seconds_bucket{kind="${kind}",le="${b}"} ${g.counts[i]}`),
    );
    out.push(`nodejs_gc_duration_seconds_bucket{kind="${kind}",le="+Inf"} ${g.count}`);
    out.push(`nodejs_gc_duration_seconds_sum{kind="${kind}"} ${g.sum}`);
    out.push(`nodejs_gc_duration_seconds_count{kind="${kind}"} ${g.count}`);
  }
  const [major = '', minor = '', patch = ''] = process.versions.node.split('.');
  out.push('# HELP nodejs_version_info Node.js version info.');
  out.push('# TYPE nodejs_version_info gauge');
  out.push(
    `nodejs_version_info{version="v${process.versions.node}",major="${major}",minor="${minor}",patch="${patch}"} 1`,
  );
}

function gauge(out: string[], name: string, type: 'gauge' | 'counter', help: string, value: number): void {
  out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name} ${value}`);
}

function openFds(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return undefined;
  }
}

function maxOpenFds(): number | undefined {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

function virtualMemoryBytes(): number | undefined {
  try {
    // /proc/self/stat: the command name may hold spaces, so count fields after its closing parenthesis; vsize is field 23.
    const text = readFileSync('/proc/self/stat', 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const v = Number(fields[20]);
    return Number.isFinite(v) ? v : undefined;
  } catch {
    return undefined;
  }
}
