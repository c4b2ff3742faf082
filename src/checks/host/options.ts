/**
 * Option helpers shared by the host checks: comma lists that may also be
 * repeated (`device=eth0,eth1 device=lo`), and the lookback of rate checks.
 */
import { ArgumentError, type CheckArguments, type OptionDef } from '../arguments.js';

/** Every value of a repeatable option, split at commas, trimmed, empty parts dropped. */
export function listArgument(args: CheckArguments, ...keys: string[]): string[] {
  return keys
    .flatMap((k) => args.all(k))
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/i;
const FACTOR: Readonly<Record<string, number>> = { ms: 0.001, s: 1, m: 60, h: 3600 };

/** A duration argument in seconds (`30`, `30s`, `5m`), within [min, max]. */
export function durationArgument(
  args: CheckArguments,
  key: string,
  fallbackSeconds: number,
  min: number,
  max: number,
): number {
  const raw = args.get(key);
  if (raw === undefined || raw.trim() === '') return fallbackSeconds;
  const m = DURATION.exec(raw.trim());
  const seconds = m ? Number(m[1]) * (FACTOR[(m[2] ?? 's').toLowerCase()] ?? NaN) : NaN;
  if (!(seconds >= min && seconds <= max))
    throw new ArgumentError(`${key}=${raw} is not a duration between ${min}s and ${max}s (such as 30s, 5m)`);
  return seconds;
}

/** The `lookback` option of every rate check. */
export function lookbackOption(defaultSeconds: number, maxSeconds: number): OptionDef {
  return {
    description: `Seconds (or 30s, 5m) over which rates are computed: against the oldest reading of an earlier call inside this window; without one, the call samples for 1 s itself. At most ${maxSeconds}s.`,
    default: String(defaultSeconds),
  };
}
