import { inRange } from '../../in-range.js';
/**
 * "Did you mean" suggestions for unknown sections, keys and modules:
 * the closest candidate by edit distance (case-insensitive), if close enough.
 */

/** `divisor`: the edit distance allowed is a `divisor`th of the word's length (at least 2). */
export function closest(word: string, candidates: Iterable<string>, divisor = 3): string | undefined {
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = distance(w, c.toLowerCase());
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  const limit = Math.max(2, Math.floor(w.length / divisor));
  return bestDistance <= limit ? best : undefined;
}

export function suggestion(word: string, candidates: Iterable<string>): string {
  const c = closest(word, candidates);
  return c === undefined ? '' : `; did you mean "${c}"?`;
}

/** Levenshtein distance with two rows. */
function distance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  let cur = new Array<number>(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      cur[j] = Math.min(inRange(prev, j) + 1, inRange(cur, j - 1) + 1, inRange(prev, j - 1) + cost);
    }
    [prev, cur] = [cur, prev];
  }
  return inRange(prev, b.length);
}
