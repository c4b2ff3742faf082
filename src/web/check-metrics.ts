/**
 * Check results in the Prometheus text format 0.0.4, for GET
 * /api/v1/metrics/checks: per query its state as a gauge
 * (`agent_check_state`, 0 OK .. 3 UNKNOWN) and each numeric perf value as a
 * gauge whose name carries the unit in base units, as Prometheus names
 * them: `agent_check_perf_ratio` (% / 100), `agent_check_perf_seconds`
 * (s, ms, us, ns), `agent_check_perf_bytes` (B, KB … TB, 1024-based as
 * NSClient++ and Nagios plugins write them); any other unit (or none) is
 * `agent_check_perf` with the unit as a label. Labels: `query`, and `label`
 * (the perf label). String perf values are left out.
 */
import type { PerfValue, QueryResult } from '../core/result.js';
import { labels } from './metrics.js';

interface Scale {
  family: string;
  factor: number;
}

const BYTES = 'agent_check_perf_bytes';
const SECONDS = 'agent_check_perf_seconds';
const UNITS: Readonly<Record<string, Scale>> = {
  '%': { family: 'agent_check_perf_ratio', factor: 0.01 },
  s: { family: SECONDS, factor: 1 },
  ms: { family: SECONDS, factor: 1e-3 },
  us: { family: SECONDS, factor: 1e-6 },
  ns: { family: SECONDS, factor: 1e-9 },
  b: { family: BYTES, factor: 1 },
  kb: { family: BYTES, factor: 1024 },
  mb: { family: BYTES, factor: 1024 ** 2 },
  gb: { family: BYTES, factor: 1024 ** 3 },
  tb: { family: BYTES, factor: 1024 ** 4 },
};

const HELP: Readonly<Record<string, string>> = {
  agent_check_state: 'State of the check: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.',
  agent_check_perf_ratio: 'Perf value given in percent, as a ratio (0..1).',
  agent_check_perf_seconds: 'Perf value given in a unit of time, in seconds.',
  agent_check_perf_bytes: 'Perf value given in bytes (B, KB, MB, GB, TB: 1024-based), in bytes.',
  agent_check_perf: 'Perf value without a unit Prometheus has a base unit for; the unit as written is a label.',
};

/** The exposition text of `results`, one family after the other. */
export function renderCheckMetrics(results: readonly QueryResult[]): string {
  // By family, then by label set: a label set given twice (two perf values of one name) keeps its first value.
  const families = new Map<string, Map<string, string>>(Object.keys(HELP).map((f) => [f, new Map()]));
  const add = (family: string, by: string, value: number): void => {
    const samples = families.get(family);
    if (samples && !samples.has(by)) samples.set(by, `${family}${by} ${value}`);
  };
  for (const r of results) {
    add('agent_check_state', labels({ query: r.command }), r.result);
    for (const p of r.perf) {
      const sample = perfSample(r.command, p);
      if (sample) add(sample.family, sample.labels, sample.value);
    }
  }
  const out: string[] = [];
  for (const [family, samples] of families) {
    if (samples.size === 0) continue;
    out.push(`# HELP ${family} ${HELP[family]}`, `# TYPE ${family} gauge`, ...samples.values());
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

function perfSample(query: string, p: PerfValue): { family: string; labels: string; value: number } | undefined {
  if (typeof p.value !== 'number' || !Number.isFinite(p.value)) return undefined;
  const unit = p.unit ?? '';
  const scale = UNITS[unit.toLowerCase()];
  // Twelve significant digits: no 0.029620000000000004 from 2.962 % (a perf value carries fewer).
  if (scale)
    return {
      family: scale.family,
      labels: labels({ query, label: p.alias }),
      value: Number((p.value * scale.factor).toPrecision(12)),
    };
  return { family: 'agent_check_perf', labels: labels({ query, label: p.alias, unit }), value: p.value };
}
