/**
 * The values an expression reads (expression/evaluate.ts): the kinds of
 * variables, an item's and the summary's values, the scope of one test, a
 * getter of one value. Types only, in a file of their own so that
 * literal.ts names them without importing the evaluator back.
 */

export type VarKind = 'number' | 'percent' | 'size' | 'time' | 'ms' | 'date' | 'string' | 'bool';

export interface VarDef {
  kind: VarKind;
  description: string;
  /** For sizes: the name of the matching percentage value, so that `x > 90%` works. */
  pct?: string;
  /** For sizes: the name of the total that 100% stands for (perf thresholds). */
  of?: string;
}

export type Scalar = number | string | boolean;
export type Values = Readonly<Record<string, Scalar | undefined>>;

export interface Scope {
  /** Values of the item being judged; absent when judging the summary only. */
  item?: Values;
  /** Summary values: count, total, ok_count, ... */
  summary: Values;
  /** Current time in seconds since the epoch, for dates. */
  now: number;
}

export type Getter = (scope: Scope) => Scalar | undefined;
