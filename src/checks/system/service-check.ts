/**
 * check_service for systemd: state, sub-state, enabled, preset, restarts,
 * memory, CPU time and age of service units, from `systemctl show`
 * (systemd-units.ts). NSClient++'s state mapping and defaults; naming
 * services drops the default filter and the preset clause, as SNClient+
 * does. Without systemd (a container) the answer is UNKNOWN saying so.
 */
import type { CheckDefinition } from '../engine.js';
import { CheckError } from '../engine.js';
import type { Values } from '../expression/evaluate.js';
import { realHost, type HostSources } from '../host/host-sources.js';
import { listArgument } from '../host/options.js';
import { listServices, parseTimestamp, requireSystemd, showUnits, type UnitProperties } from './systemd-units.js';

const CRITICAL = "(state not in ('running', 'oneshot', 'static') or active = 'failed')";

/** NSClient++'s state from ActiveState, SubState and UnitFileState. */
export function serviceState(u: UnitProperties): string {
  if (u.UnitFileState === 'static') return 'static';
  const active = u.ActiveState ?? '';
  const sub = u.SubState ?? '';
  if (active === 'failed' || active === 'inactive') return 'stopped';
  if (active === 'activating') return 'starting';
  if (active === 'deactivating') return 'stopping';
  if (active === 'active') return sub === 'exited' ? 'oneshot' : 'running';
  return 'unknown';
}

export function serviceCheck(host: HostSources = realHost()): CheckDefinition {
  return {
    name: 'check_service',
    title: 'systemd services',
    description:
      'systemd service units: state, sub-state, enabled, preset, restarts, memory, CPU time and age, from systemctl show. UNKNOWN when systemd does not run the host.',
    options: {
      service: {
        description:
          'Unit name (with or without .service); comma list, may be repeated. Naming services drops the default filter and the preset clause of the default critical.',
        repeat: true,
      },
      exclude: {
        description: 'Unit names to leave out (with or without .service); comma list, may be repeated.',
        repeat: true,
      },
    },
    vars: {
      name: { kind: 'string', description: 'Unit name without .service.' },
      service: { kind: 'string', description: 'Same as name.' },
      desc: { kind: 'string', description: 'Description of the unit.' },
      load: { kind: 'string', description: 'LoadState: loaded, not-found, masked, error.' },
      active: {
        kind: 'string',
        description: 'ActiveState: active, inactive, failed, activating, deactivating, reloading.',
      },
      sub_state: { kind: 'string', description: 'SubState: running, exited, dead, failed, auto-restart, ...' },
      state: {
        kind: 'string',
        description: 'running, oneshot (active and exited), static, starting, stopping, stopped or unknown.',
      },
      enabled: {
        kind: 'string',
        description:
          'UnitFileState: enabled, disabled, static, masked, indirect, generated, ... (start_type is the same).',
      },
      start_type: { kind: 'string', description: 'Same as enabled (NSClient++ name).' },
      preset: { kind: 'string', description: 'UnitFilePreset: enabled or disabled.' },
      pid: { kind: 'number', description: 'Main PID; 0 when not running.' },
      restarts: { kind: 'number', description: 'Automatic restarts since the unit was loaded (NRestarts).' },
      memory: { kind: 'size', description: "Memory of the unit's cgroup; empty when accounting is off." },
      cpu_time: { kind: 'time', description: 'CPU time the unit used; empty when accounting is off.' },
      cpu: {
        kind: 'percent',
        description: 'CPU time divided by the time since start, in percent of one CPU (a lifetime average).',
      },
      tasks: { kind: 'number', description: 'Tasks (processes and threads) of the unit.' },
      started: { kind: 'date', description: 'When the unit last became active.' },
      age: { kind: 'time', description: 'Seconds since the unit last became active.' },
    },
    defaults: {
      filter: "active != 'inactive'",
      critical: `${CRITICAL} and preset != 'disabled'`,
      topSyntax: '${status}: ${problem_list}',
      okSyntax: '%(status): All %(count) service(s) are ok.',
      detailSyntax: '${name}=${state}',
      emptySyntax: '%(status): No services found',
      emptyState: 'unknown',
    },
    defaultsFor(args) {
      return listArgument(args, 'service').length > 0 ? { filter: undefined, critical: CRITICAL } : {};
    },
    async collect(args, call) {
      await requireSystemd(host);
      const named = listArgument(args, 'service');
      const exclude = new Set(listArgument(args, 'exclude').map(bare));
      const units =
        named.length > 0 ? await showUnits(host, named, call.signal) : await listServices(host, call.signal);
      if (named.length > 0) {
        const missing = units.filter((u) => u.LoadState === 'not-found').map((u) => bare(u.Id ?? ''));
        if (missing.length > 0) throw new CheckError(`could not find service: ${missing.join(', ')}`);
      }
      return units.filter((u) => !exclude.has(bare(u.Id ?? ''))).map((u) => toItem(u, call.now, named.length > 0));
    },
    perf: (item) => {
      if (!item.named) return [];
      const n = String(item.name);
      return [
        { object: n, key: 'memory', alias: `${n} memory`, minimum: 0 },
        { object: n, key: 'cpu', alias: `${n} cpu`, minimum: 0 },
        { object: n, key: 'tasks', alias: `${n} tasks`, minimum: 0 },
        { object: n, key: 'restarts', alias: `${n} restarts`, minimum: 0 },
      ];
    },
    summaryPerf: [
      { object: 'count', key: 'count', alias: 'count', minimum: 0 },
      { object: 'problem_count', key: 'problem_count', alias: 'failed', minimum: 0 },
    ],
  };
}

function bare(name: string): string {
  return name.replace(/\.service$/, '');
}

/** A number property; systemd prints [not set] or the maximum uint64 for "no value". */
function num(v: string | undefined): number | undefined {
  if (v === undefined || v === '' || v === '[not set]' || v === '18446744073709551615') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

function toItem(u: UnitProperties, now: number, named: boolean): Values {
  const started = parseTimestamp(u.ActiveEnterTimestamp) ?? parseTimestamp(u.ExecMainStartTimestamp);
  const state = serviceState(u);
  const cpuNs = num(u.CPUUsageNSec);
  const age = started !== undefined && state !== 'stopped' ? Math.max(0, now - started) : undefined;
  const name = bare(u.Id ?? '');
  const item: Record<string, string | number | boolean | undefined> = {
    name,
    service: name,
    desc: u.Description ?? '',
    load: u.LoadState ?? '',
    active: u.ActiveState ?? '',
    sub_state: u.SubState ?? '',
    state,
    enabled: u.UnitFileState ?? '',
    start_type: u.UnitFileState ?? '',
    preset: u.UnitFilePreset ?? '',
    pid: num(u.MainPID) ?? 0,
    restarts: num(u.NRestarts) ?? 0,
    memory: num(u.MemoryCurrent),
    cpu_time: cpuNs !== undefined ? cpuNs / 1e9 : undefined,
    cpu: cpuNs !== undefined && age !== undefined && age > 0 ? (cpuNs / 1e9 / age) * 100 : undefined,
    tasks: num(u.TasksCurrent),
    started,
    age,
    named,
  };
  return item;
}
