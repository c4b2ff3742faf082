/**
 * Performance data of a check: one metric per value a PerfSpec names, with
 * the warning and critical thresholds read back from the check's
 * expressions (`used > 80%` gives the threshold of `used` and `used_pct`).
 */
import type { Compiled, Threshold, Values, VarDef } from './expression/evaluate.js';
import type { RawMetric } from './perf-config.js';
import type { PerfSpec } from './check-definition.js';

/** Add the metric `spec` names (when its value is a number) with its thresholds to `out`. */
export function pushMetric(
  out: RawMetric[],
  spec: PerfSpec,
  values: Values,
  vars: Readonly<Record<string, VarDef>>,
  plan: { warning?: Compiled; critical?: Compiled },
): void {
  const def = vars[spec.key];
  const value = values[spec.key];
  if (!def || typeof value !== 'number') return;
  const m: RawMetric = { object: spec.object, key: spec.key, alias: spec.alias, kind: def.kind, value };
  const w = thresholdFor(plan.warning, spec.key, values, vars);
  const c = thresholdFor(plan.critical, spec.key, values, vars);
  if (w !== undefined) m.warning = w.value;
  if (c !== undefined) m.critical = c.value;
  if (w?.below) m.warningBelow = true;
  if (c?.below) m.criticalBelow = true;
  if (spec.minimum !== undefined) m.minimum = spec.minimum;
  if (spec.maximum !== undefined) m.maximum = spec.maximum;
  out.push(m);
}

/**
 * The threshold an expression sets for a value, in the value's unit: `used >
 * 80%` gives 80 for `used_pct` and 80% of `size` for `used`; `used_pct > 80`
 * does the same the other way round. `below` when it alerts under the value
 * (a "low is bad" figure such as uptime or days left).
 */
function thresholdFor(
  expr: Compiled | undefined,
  key: string,
  values: Values,
  vars: Readonly<Record<string, VarDef>>,
): { value: number; below: boolean } | undefined {
  if (!expr) return undefined;
  const def = vars[key];
  if (!def) return undefined;
  const sizeOwner = Object.entries(vars).find(([, d]) => d.pct === key)?.[0];
  const total = (owner: string): number | undefined => {
    const of = vars[owner]?.of;
    const t = of ? values[of] : undefined;
    return typeof t === 'number' ? t : undefined;
  };
  const match = (t: Threshold): number | undefined => {
    if (t.name === key && !t.viaPercent) return t.value;
    if (t.name === key && t.viaPercent) {
      const size = total(key);
      return size === undefined ? undefined : (t.value / 100) * size;
    }
    if (sizeOwner !== undefined && t.name === sizeOwner && t.viaPercent) return t.value;
    if (sizeOwner !== undefined && t.name === sizeOwner) {
      const size = total(sizeOwner);
      return size ? (t.value / size) * 100 : undefined;
    }
    if (def.pct !== undefined && t.name === def.pct) {
      const size = total(key);
      return size === undefined ? undefined : (t.value / 100) * size;
    }
    return undefined;
  };
  for (const t of expr.thresholds) {
    const v = match(t);
    // `uptime < 180s` alerts below the value: Nagios writes that range 180: (a plain 180 means above).
    if (v !== undefined) return { value: v, below: t.op === '<' || t.op === '<=' };
  }
  return undefined;
}
