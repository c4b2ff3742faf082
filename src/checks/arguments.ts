/**
 * Check arguments: `key=value` tokens as NSClient++ takes them (over NRPE
 * each `!`-separated part is one token, over REST each query-string pair).
 * A token without `=` is a flag (`show-all`). Leading `--` is accepted
 * (`--warn=load > 80`), and `warn`/`crit` are short for `warning`/`critical`.
 */

export interface OptionDef {
  /** One sentence for help output and the README. */
  description: string;
  /** Shown as the default in help output. */
  default?: string;
  /** True for options that take no value (flags). */
  flag?: boolean;
  /** True when the option may be given several times. */
  repeat?: boolean;
}

export class ArgumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArgumentError';
  }
}

const ALIASES: Readonly<Record<string, string>> = {
  warn: 'warning',
  crit: 'critical',
};

/** Parsed arguments: every value of every key, in order. */
export class CheckArguments {
  private readonly values = new Map<string, string[]>();

  constructor(entries: Iterable<[string, string]>) {
    for (const [k, v] of entries) {
      const list = this.values.get(k);
      if (list) list.push(v);
      else this.values.set(k, [v]);
    }
  }

  has(key: string): boolean {
    return this.values.has(key);
  }

  /** The last value given for a key (later tokens win), or undefined. */
  get(key: string): string | undefined {
    const list = this.values.get(key);
    return list ? list[list.length - 1] : undefined;
  }

  /** Every value given for a key, in order (empty when absent). */
  all(key: string): string[] {
    return [...(this.values.get(key) ?? [])];
  }

  /** A flag is on when given bare, or with a value other than false/0/no. */
  flag(key: string): boolean {
    const v = this.get(key);
    if (v === undefined) return false;
    return !/^(false|0|no|off)$/i.test(v.trim());
  }

  keys(): string[] {
    return [...this.values.keys()];
  }
}

/**
 * Parse tokens against the allowed options. Throws ArgumentError naming the
 * first unknown option, or a flag given a value it cannot take.
 */
export function parseArguments(
  tokens: readonly string[],
  allowed: Readonly<Record<string, OptionDef>>,
): CheckArguments {
  const entries: [string, string][] = [];
  for (const raw of tokens) {
    const token = raw.replace(/^--/, '');
    if (token.trim() === '') continue;
    const eq = token.indexOf('=');
    const rawKey = (eq < 0 ? token : token.slice(0, eq)).trim().toLowerCase();
    const key = ALIASES[rawKey] ?? rawKey;
    const value = eq < 0 ? '' : token.slice(eq + 1);
    const def = allowed[key];
    if (!def) {
      const known = Object.keys(allowed).sort().join(', ');
      throw new ArgumentError(`unknown argument '${rawKey}' (known: ${known})`);
    }
    if (eq < 0 && !def.flag) throw new ArgumentError(`argument '${rawKey}' needs a value (${rawKey}=...)`);
    entries.push([key, value]);
  }
  return new CheckArguments(entries);
}

/** Parse a number argument, with a clear error naming the key. */
export function numberArgument(
  args: CheckArguments,
  key: string,
  fallback: number,
  range: { min?: number; max?: number } = {},
): number {
  const raw = args.get(key);
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || (range.min !== undefined && n < range.min) || (range.max !== undefined && n > range.max)) {
    const bounds = [
      range.min !== undefined ? `at least ${range.min}` : '',
      range.max !== undefined ? `at most ${range.max}` : '',
    ]
      .filter(Boolean)
      .join(' and ');
    throw new ArgumentError(`${key}=${raw} is not a number${bounds ? ` ${bounds}` : ''}`);
  }
  return n;
}
