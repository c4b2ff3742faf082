/**
 * check_temperature: hwmon sensors (/sys/class/hwmon/hwmon*\/temp*_input,
 * with their label, max, crit and min), or the thermal zones
 * (/sys/class/thermal/thermal_zone*) when no hwmon sensor exists (most
 * zones also show up as hwmon devices, so reading both would count them
 * twice). NSClient++'s defaults (warn above 70 °C, crit above 90 °C);
 * each sensor's own limits are the names crit, max and min, so
 * `crit=temperature > crit` uses them. No sensor at all (a container, a
 * VM) is UNKNOWN saying so.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckError, type CheckDefinition } from '../engine.js';
import type { Values } from '../expression/evaluate.js';
import { realHost, type HostSources } from '../host/host-sources.js';
import { listArgument } from '../host/options.js';

export interface Sensor {
  sensor: string;
  name: string;
  label: string;
  temperature: number;
  crit?: number;
  max?: number;
  min?: number;
  source: 'hwmon' | 'thermal';
}

export function temperatureCheck(host: HostSources = realHost()): CheckDefinition {
  return {
    name: 'check_temperature',
    title: 'Temperatures',
    description:
      "Temperatures of the hwmon sensors (or the thermal zones when there are none) in °C, with each sensor's own max, crit and min.",
    options: {
      sensor: {
        description:
          'Sensor to check: its full name (coretemp_core_0), chip name (coretemp) or label (core 0); comma list, may be repeated; default all.',
        repeat: true,
      },
    },
    vars: {
      sensor: {
        kind: 'string',
        description: 'Full sensor name: chip name and label joined by _, lower case (coretemp_package_id_0).',
      },
      name: { kind: 'string', description: 'Chip (hwmon name) or thermal zone type.' },
      label: { kind: 'string', description: 'Sensor label (Core 0), else temp1, temp2, ...' },
      temperature: { kind: 'number', description: 'Temperature in °C.' },
      crit: { kind: 'number', description: "The sensor's critical limit in °C; empty when it has none." },
      max: { kind: 'number', description: "The sensor's high limit in °C; empty when it has none." },
      min: { kind: 'number', description: "The sensor's low limit in °C; empty when it has none." },
      source: { kind: 'string', description: 'hwmon or thermal.' },
    },
    defaults: {
      warning: 'temperature > 70',
      critical: 'temperature > 90',
      topSyntax: '${status}: ${list}',
      detailSyntax: '${sensor}: ${temperature} °C',
      emptySyntax: '%(status): No sensor matches',
      emptyState: 'unknown',
    },
    async collect(args) {
      const wanted = listArgument(args, 'sensor').map((s) => s.toLowerCase());
      let sensors = await readHwmon(host.sys);
      if (sensors.length === 0) sensors = await readThermalZones(host.sys);
      if (sensors.length === 0)
        throw new CheckError(
          `no temperature sensors on this host (${join(host.sys, 'class', 'hwmon')} and ${join(host.sys, 'class', 'thermal')} have none; usual in containers and virtual machines)`,
        );
      const chosen =
        wanted.length === 0
          ? sensors
          : sensors.filter((s) =>
              wanted.some((w) => w === s.sensor || w === s.name.toLowerCase() || w === s.label.toLowerCase()),
            );
      return chosen.map((s): Values => ({ ...s }));
    },
    perf: (item) => [
      {
        object: String(item.sensor),
        key: 'temperature',
        alias: String(item.sensor),
        ...(typeof item.min === 'number' ? { minimum: item.min } : {}),
        ...(typeof item.crit === 'number'
          ? { maximum: item.crit }
          : typeof item.max === 'number'
            ? { maximum: item.max }
            : {}),
      },
    ],
  };
}

async function readText(path: string): Promise<string | undefined> {
  return readFile(path, 'utf8').then(
    (t) => t.trim(),
    () => undefined,
  );
}

/** Millidegrees to °C; undefined for missing or absurd values (unset limits read as huge numbers). */
async function milli(path: string): Promise<number | undefined> {
  const t = await readText(path);
  const n = t === undefined || t === '' ? NaN : Number(t);
  if (!Number.isFinite(n) || n >= 65261850 || n <= -273150) return undefined;
  return n / 1000;
}

export async function readHwmon(sys: string): Promise<Sensor[]> {
  const base = join(sys, 'class', 'hwmon');
  const chips = await readdir(base).catch(() => [] as string[]);
  const out: Sensor[] = [];
  for (const chip of chips.sort(byNumber)) {
    // Older drivers keep the files under device/.
    for (const dir of [join(base, chip), join(base, chip, 'device')]) {
      const files = await readdir(dir).catch(() => [] as string[]);
      const inputs = files.filter((f) => /^temp\d+_input$/.test(f)).sort(byNumber);
      if (inputs.length === 0) continue;
      const name = (await readText(join(base, chip, 'name'))) ?? (await readText(join(dir, 'name'))) ?? chip;
      for (const input of inputs) {
        const n = input.slice(0, input.indexOf('_'));
        const temperature = await milli(join(dir, input));
        if (temperature === undefined) continue;
        const label = (await readText(join(dir, `${n}_label`))) || n;
        const s: Sensor = { sensor: key(name, label), name, label, temperature, source: 'hwmon' };
        const [crit, max, min] = await Promise.all(['crit', 'max', 'min'].map((k) => milli(join(dir, `${n}_${k}`))));
        if (crit !== undefined) s.crit = crit;
        if (max !== undefined) s.max = max;
        if (min !== undefined) s.min = min;
        out.push(s);
      }
      break;
    }
  }
  return unique(out);
}

export async function readThermalZones(sys: string): Promise<Sensor[]> {
  const base = join(sys, 'class', 'thermal');
  const zones = (await readdir(base).catch(() => [] as string[]))
    .filter((z) => z.startsWith('thermal_zone'))
    .sort(byNumber);
  const out: Sensor[] = [];
  for (const z of zones) {
    const dir = join(base, z);
    const temperature = await milli(join(dir, 'temp'));
    if (temperature === undefined) continue;
    const name = (await readText(join(dir, 'type'))) ?? z;
    const s: Sensor = { sensor: key(name, z), name, label: z, temperature, source: 'thermal' };
    // Trip points: the critical one is the zone's crit, the hot one its max.
    for (const f of (await readdir(dir).catch(() => [] as string[])).filter((f) => /^trip_point_\d+_type$/.test(f))) {
      const type = await readText(join(dir, f));
      const t = await milli(join(dir, f.replace(/_type$/, '_temp')));
      if (t === undefined) continue;
      if (type === 'critical') s.crit = t;
      else if (type === 'hot') s.max = t;
    }
    out.push(s);
  }
  return unique(out);
}

function key(name: string, label: string): string {
  return `${name}_${label}`.toLowerCase().replace(/\s+/g, '_');
}

/** A repeated sensor name gets .2, .3, ... */
function unique(list: Sensor[]): Sensor[] {
  const seen = new Map<string, number>();
  return list.map((s) => {
    const n = (seen.get(s.sensor) ?? 0) + 1;
    seen.set(s.sensor, n);
    return n === 1 ? s : { ...s, sensor: `${s.sensor}.${n}` };
  });
}

function byNumber(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
