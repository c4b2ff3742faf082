/**
 * `list[i]` where the code has proven `i` in range (a loop bound, a table
 * built to size, a regular-expression group that always takes part), typed
 * without the `undefined` that noUncheckedIndexedAccess adds to every
 * lookup. An index out of range there is a bug, not input: it throws a
 * RangeError instead of letting `undefined` flow on as a value. Where the
 * value may really be missing (input, a lookup by name), handle the
 * `undefined` instead.
 */
export function inRange<T>(list: ArrayLike<T>, i: number): T {
  const v = list[i];
  if (v === undefined) throw new RangeError(`index ${i} is outside 0..${list.length - 1}`);
  return v;
}

/** A tuple of `N` elements of `T` (`Tuple<string, 3>` is `[string, string, string]`). */
export type Tuple<T, N extends number, R extends T[] = []> = R['length'] extends N ? R : Tuple<T, N, [...R, T]>;

/**
 * The first `n` elements of `list` as a tuple, each typed without
 * `undefined`; undefined when `list` has fewer (a short line of a /proc
 * file, say: the caller skips or reports it).
 */
export function firstN<T, N extends number>(list: readonly T[], n: N): Tuple<T, N> | undefined {
  // The length is checked here, once, so that callers destructure without a check per element.
  return list.length >= n ? (list.slice(0, n) as Tuple<T, N>) : undefined;
}
