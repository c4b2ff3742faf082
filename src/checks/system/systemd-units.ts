/**
 * systemd service units as `systemctl show` reports them (the properties
 * NSClient++ reads, plus memory, CPU, restarts and start time): stable
 * `Key=Value` text, safer to parse than `systemctl status`. Everything
 * goes through the HostSources command runner, so tests replay recorded
 * output. systemd counts as running when /run/systemd/system exists (what
 * sd_booted(3) tests).
 */
import { CheckError } from '../engine.js';
import { describeFailure, hostPathExists, type HostSources } from '../host/host-sources.js';

export const SHOW_PROPERTIES = [
  'Id',
  'Description',
  'LoadState',
  'ActiveState',
  'SubState',
  'UnitFileState',
  'UnitFilePreset',
  'MainPID',
  'TasksCurrent',
  'MemoryCurrent',
  'CPUUsageNSec',
  'NRestarts',
  'ActiveEnterTimestamp',
  'ExecMainStartTimestamp',
] as const;

export type UnitProperties = Partial<Record<(typeof SHOW_PROPERTIES)[number], string>>;

const TIMEOUT_MS = 20000;
const BATCH = 200;

/** Blocks of `Key=Value` lines separated by blank lines. */
export function parseShow(text: string): UnitProperties[] {
  const out: UnitProperties[] = [];
  let cur: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      if (Object.keys(cur).length > 0) out.push(cur);
      cur = {};
      continue;
    }
    const eq = line.indexOf('=');
    if (eq > 0) cur[line.slice(0, eq)] = line.slice(eq + 1);
  }
  if (Object.keys(cur).length > 0) out.push(cur);
  return out;
}

/** Unit names of `systemctl list-units --plain --no-legend` (first column; a leading ● marker is dropped). */
export function parseListUnits(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.replace(/^[\s●*]+/, '').split(/\s+/)[0] ?? '')
    .filter((n) => n.endsWith('.service'));
}

/** Throws CheckError when systemd does not run this host (a container, another init). */
export async function requireSystemd(host: HostSources): Promise<void> {
  if (!(await hostPathExists(host, '/run/systemd/system'))) {
    throw new CheckError(
      'systemd is not running on this host (no /run/systemd/system: not booted with systemd as PID 1, as in most containers); check_service needs systemd',
    );
  }
}

/** Every loaded service unit (`--all`: inactive ones too), with its properties. */
export async function listServices(host: HostSources, signal?: AbortSignal): Promise<UnitProperties[]> {
  const names = parseListUnits(
    await systemctl(host, ['list-units', '--type=service', '--all', '--plain', '--no-legend', '--no-pager'], signal),
  );
  const out: UnitProperties[] = [];
  for (let i = 0; i < names.length; i += BATCH) out.push(...(await showUnits(host, names.slice(i, i + BATCH), signal)));
  return out;
}

/** Properties of the named units (`.service` added when missing); a unit systemd does not know has LoadState=not-found. */
export async function showUnits(
  host: HostSources,
  names: readonly string[],
  signal?: AbortSignal,
): Promise<UnitProperties[]> {
  if (names.length === 0) return [];
  const units = names.map((n) => (n.includes('.') ? n : `${n}.service`));
  const args = ['show', '--no-pager', `--property=${SHOW_PROPERTIES.join(',')}`, '--', ...units];
  try {
    return parseShow(await systemctl(host, ['--timestamp=unix', ...args], signal));
  } catch (err) {
    // systemd before 248 has no --timestamp; its dates are read as text then.
    if (!(err instanceof CheckError) || !/option.{0,4}--timestamp/i.test(err.message)) throw err;
    return parseShow(await systemctl(host, args, signal));
  }
}

async function systemctl(host: HostSources, args: string[], signal?: AbortSignal): Promise<string> {
  const argv = ['systemctl', ...args];
  const r = await host.run(argv, { timeoutMs: TIMEOUT_MS, ...(signal ? { signal } : {}) });
  if (r.error !== undefined && /ENOENT/.test(r.error))
    throw new CheckError('systemctl is not installed on this host; check_service needs systemd');
  if (r.code !== 0) throw new CheckError(`systemctl failed: ${describeFailure(argv, r)}`);
  return r.stdout;
}

/** A systemd timestamp: `@1700000000` (--timestamp=unix) or `Mon 2026-11-23 10:00:00 UTC`; undefined when unset. */
export function parseTimestamp(v: string | undefined): number | undefined {
  if (v === undefined || v.trim() === '' || v === 'n/a') return undefined;
  const unix = /^@(\d+)$/.exec(v.trim());
  if (unix) return Number(unix[1]);
  const t = Date.parse(
    v
      .replace(/^[A-Za-z]{3} /, '')
      .replace(/ UTC$/, 'Z')
      .replace(' ', 'T'),
  );
  return Number.isFinite(t) ? t / 1000 : undefined;
}
