/** The median of the benchmarks' figures: the upper middle of an even count (of 10 rounds, the 6th smallest). */
import { inRange } from '../../src/in-range.js';

export function median(xs: readonly number[]): number {
  return inRange(
    [...xs].sort((x, y) => x - y),
    Math.floor(xs.length / 2),
  );
}
