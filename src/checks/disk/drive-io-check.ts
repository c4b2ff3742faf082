/**
 * check_drive_io: per block device read and write rates, operations per
 * second, utilisation (share of time with I/O in flight) and average queue
 * length between calls, from /proc/diskstats. Without drive= it watches the
 * whole disks of /sys/block (loop and ram devices left out); drive= takes
 * any name of /proc/diskstats (sda, sda1, dm-0, nvme0n1, also /dev/sda).
 * NSClient++ calls the check check_disk_io; its name percent_disk_time is
 * kept as a synonym of utilization.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckDefinition } from '../engine.js';
import type { Values } from '../expression/evaluate.js';
import {
  counterDelta,
  counterRate,
  flattenCounters,
  objectNames,
  sharedCounterHistory,
  type CounterHistory,
} from '../rates/counter-history.js';
import { realHost, type HostSources } from '../host/host-sources.js';
import { durationArgument, listArgument, lookbackOption } from '../host/options.js';
import { readDiskstats, type DiskCounters } from '../system/kernel-counters.js';
import { readMountinfo } from './mountinfo.js';

const COUNTERS: readonly (keyof DiskCounters)[] = [
  'reads',
  'readBytes',
  'readMs',
  'writes',
  'writeBytes',
  'writeMs',
  'ioMs',
  'weightedMs',
  'inProgress',
];

export function driveIoCheck(
  host: HostSources = realHost(),
  history: CounterHistory = sharedCounterHistory(),
): CheckDefinition {
  const maxLookback = history.maxLookbackSeconds;
  return {
    name: 'check_drive_io',
    title: 'Disk I/O',
    description:
      'Per block device read/write rates, operations per second, utilisation and queue length between calls, from /proc/diskstats (check_disk_io in NSClient++).',
    options: {
      drive: {
        description:
          'Device name from /proc/diskstats (sda, dm-0, nvme0n1p2; /dev/ is stripped); comma list, may be repeated; default the whole disks of /sys/block without loop and ram devices.',
        repeat: true,
      },
      lookback: lookbackOption(300, maxLookback),
    },
    vars: {
      drive: { kind: 'string', description: 'Device name.' },
      label: { kind: 'string', description: 'Device-mapper name, else the mount point, else empty.' },
      read_bytes_rate: { kind: 'size', description: 'Bytes read per second.' },
      write_bytes_rate: { kind: 'size', description: 'Bytes written per second.' },
      read_count_rate: { kind: 'number', description: 'Reads completed per second.' },
      write_count_rate: { kind: 'number', description: 'Writes completed per second.' },
      read_bytes: { kind: 'size', description: 'Bytes read since boot.' },
      write_bytes: { kind: 'size', description: 'Bytes written since boot.' },
      read_count: { kind: 'number', description: 'Reads completed since boot.' },
      write_count: { kind: 'number', description: 'Writes completed since boot.' },
      read_latency: { kind: 'number', description: 'Average milliseconds per read within the lookback.' },
      write_latency: { kind: 'number', description: 'Average milliseconds per write within the lookback.' },
      utilization: { kind: 'percent', description: 'Share of the lookback with I/O in flight, in percent.' },
      percent_disk_time: { kind: 'percent', description: 'Same as utilization (NSClient++ name).' },
      queue_length: { kind: 'number', description: 'Average requests in flight or queued within the lookback.' },
      iops_in_progress: { kind: 'number', description: 'Requests in flight now.' },
      lookback: { kind: 'time', description: 'Seconds the rates were measured over.' },
    },
    defaults: {
      warning: 'utilization > 80',
      critical: 'utilization > 95',
      topSyntax: '${status}: ${list}',
      detailSyntax: '%(drive) >%(write_bytes_rate)/s <%(read_bytes_rate)/s %(utilization)%',
      emptySyntax: '%(status): No drives found',
      emptyState: 'unknown',
    },
    async collect(args, call) {
      const wanted = listArgument(args, 'drive').map((d) => d.replace(/^\/dev\//, ''));
      const lookback = durationArgument(args, 'lookback', 300, 1, maxLookback);
      const w = await history.window(
        `disk:${host.proc}`,
        async () => flattenCounters(await readDiskstats(host.proc), COUNTERS),
        lookback,
        call.signal,
      );
      const present = objectNames(w.current);
      for (const d of wanted)
        if (!present.includes(d)) throw new Error(`no drive named ${d} in ${join(host.proc, 'diskstats')}`);
      const drives = wanted.length > 0 ? wanted : await wholeDisks(host, present);
      const labels = await driveLabels(host, drives);
      return drives.map((d): Values => {
        const rate = (k: string): number => counterRate(w, `${d}.${k}`) ?? 0;
        const delta = (k: string): number => counterDelta(w, `${d}.${k}`) ?? 0;
        const cur = (k: string): number => w.current.values.get(`${d}.${k}`) ?? 0;
        const utilization = Math.min(100, (delta('ioMs') / (w.seconds * 1000)) * 100);
        return {
          drive: d,
          label: labels.get(d) ?? '',
          read_bytes_rate: rate('readBytes'),
          write_bytes_rate: rate('writeBytes'),
          read_count_rate: rate('reads'),
          write_count_rate: rate('writes'),
          read_bytes: cur('readBytes'),
          write_bytes: cur('writeBytes'),
          read_count: cur('reads'),
          write_count: cur('writes'),
          read_latency: delta('reads') > 0 ? delta('readMs') / delta('reads') : 0,
          write_latency: delta('writes') > 0 ? delta('writeMs') / delta('writes') : 0,
          utilization,
          percent_disk_time: utilization,
          queue_length: delta('weightedMs') / (w.seconds * 1000),
          iops_in_progress: cur('inProgress'),
          lookback: w.seconds,
        };
      });
    },
    perf: (item) => [
      { object: String(item.drive), key: 'read_bytes_rate', alias: `${item.drive} read`, minimum: 0 },
      { object: String(item.drive), key: 'write_bytes_rate', alias: `${item.drive} write`, minimum: 0 },
      { object: String(item.drive), key: 'utilization', alias: `${item.drive} utilization`, minimum: 0, maximum: 100 },
      { object: String(item.drive), key: 'queue_length', alias: `${item.drive} queue`, minimum: 0 },
    ],
  };
}

/** Whole disks: entries of /sys/block that /proc/diskstats knows, without loop and ram devices. */
async function wholeDisks(host: HostSources, present: readonly string[]): Promise<string[]> {
  const block = await readdir(join(host.sys, 'block')).catch(() => undefined);
  const list = block ?? present;
  return list.filter((d) => present.includes(d) && !/^(loop|ram|zram)\d+$/.test(d)).sort();
}

/** Device-mapper names, else mount points (by major:minor). */
async function driveLabels(host: HostSources, drives: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const mounts = await readMountinfo(host.proc).catch(() => []);
  for (const d of drives) {
    const dm = await readFile(join(host.sys, 'block', d, 'dm', 'name'), 'utf8').catch(() => undefined);
    if (dm !== undefined && dm.trim() !== '') {
      out.set(d, dm.trim());
      continue;
    }
    const dev = await readFile(join(host.sys, 'class', 'block', d, 'dev'), 'utf8').catch(() => undefined);
    const point = dev !== undefined ? mounts.find((m) => m.devId === dev.trim())?.mountPoint : undefined;
    if (point !== undefined) out.set(d, point);
  }
  return out;
}
