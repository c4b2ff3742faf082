/**
 * check_negate, check_multi and check_timeout: checks that run other
 * queries (through the `query` function the module hands in, normally
 * `ctx.core.query`) and reshape their results. None throws: a failing inner
 * query is already an UNKNOWN result, bad arguments answer UNKNOWN.
 */
import { ArgumentError, numberArgument, parseArguments, type CheckArguments, type OptionDef } from '../arguments.js';
import { parseStatus, UNKNOWN, type QueryResult, type Status } from '../../core/result.js';
import { splitCommandLine, CommandLineError } from '../../formats/script-command-line.js';
import { linkSignals } from '../../abort-link.js';

export type QueryFn = (
  command: string,
  args: readonly string[],
  options: { signal?: AbortSignal },
) => Promise<QueryResult>;

const COMMAND_OPTIONS: Readonly<Record<string, OptionDef>> = {
  command: { description: 'The query to run.' },
  arguments: { description: 'An argument for the query; may be repeated (or put them after a bare --).', repeat: true },
};

export const NEGATE_OPTIONS: Readonly<Record<string, OptionDef>> = {
  ...COMMAND_OPTIONS,
  ok: { description: 'Status to answer instead of OK.' },
  warning: { description: 'Status to answer instead of WARNING.' },
  critical: { description: 'Status to answer instead of CRITICAL.' },
  unknown: { description: 'Status to answer instead of UNKNOWN.' },
};

/** check_negate command=Q [arguments=A ...] [ok=S] [warning=S] [critical=S] [unknown=S]: maps the status, keeps message and perf. */
export async function checkNegate(
  tokens: readonly string[],
  query: QueryFn,
  signal?: AbortSignal,
): Promise<QueryResult> {
  return guard('check_negate', async () => {
    const { args, command, inner } = commandArgs(tokens, NEGATE_OPTIONS, {
      o: 'ok',
      w: 'warning',
      c: 'critical',
      u: 'unknown',
      q: 'command',
      a: 'arguments',
    });
    const map: Partial<Record<Status, Status>> = {};
    for (const [i, key] of (['ok', 'warning', 'critical', 'unknown'] as const).entries()) {
      const v = args.get(key);
      if (v !== undefined) map[i as Status] = statusArgument(key, v);
    }
    const r = await query(command, inner, signal ? { signal } : {});
    return { ...r, command: 'check_negate', result: map[r.result] ?? r.result };
  });
}

export const MULTI_OPTIONS: Readonly<Record<string, OptionDef>> = {
  command: {
    description: 'A query with its arguments, as one command line (check_ok "all fine"); repeat for each query.',
    repeat: true,
  },
  separator: { description: 'Text between the messages.', default: ', ' },
  prefix: { description: 'Text before the messages.', default: '' },
  suffix: { description: 'Text after the messages.', default: '' },
};

/** check_multi command="Q ARGS" ...: runs each in turn; worst status (CRITICAL > WARNING > UNKNOWN > OK), joined messages, all perf. */
export async function checkMulti(
  tokens: readonly string[],
  query: QueryFn,
  signal?: AbortSignal,
): Promise<QueryResult> {
  return guard('check_multi', async () => {
    const args = parseArguments(tokens, MULTI_OPTIONS);
    const commands = args.all('command').filter((c) => c.trim() !== '');
    if (commands.length === 0) throw new ArgumentError('check_multi needs at least one command=...');
    const results: QueryResult[] = [];
    for (const line of commands) {
      let words: string[];
      try {
        words = splitCommandLine(line);
      } catch (err) {
        throw new ArgumentError(`command=${line}: ${(err as CommandLineError).message}`);
      }
      const [cmd, ...rest] = words;
      if (cmd === undefined) throw new ArgumentError(`command=${line}: the command line is empty`);
      results.push(await query(cmd, rest, signal ? { signal } : {}));
    }
    const status = results.reduce<Status>((a, r) => worst(a, r.result), 0);
    const message = `${args.get('prefix') ?? ''}${results.map((r) => r.message).join(args.get('separator') ?? ', ')}${args.get('suffix') ?? ''}`;
    return { command: 'check_multi', result: status, message, perf: results.flatMap((r) => r.perf) };
  });
}

export const TIMEOUT_OPTIONS: Readonly<Record<string, OptionDef>> = {
  ...COMMAND_OPTIONS,
  timeout: { description: 'Seconds to wait for the query.', default: '30' },
  return: { description: 'Status to answer when the time is up.', default: 'UNKNOWN' },
};

/** check_timeout command=Q timeout=S [return=STATUS]: the query's result, or `return` when it takes longer (the query is then aborted). */
export async function checkTimeout(
  tokens: readonly string[],
  query: QueryFn,
  signal?: AbortSignal,
): Promise<QueryResult> {
  return guard('check_timeout', async () => {
    const { args, command, inner } = commandArgs(tokens, TIMEOUT_OPTIONS, {
      q: 'command',
      a: 'arguments',
      t: 'timeout',
    });
    const seconds = numberArgument(args, 'timeout', 30, { min: 0.001, max: 86400 });
    const onTimeout = statusArgument('return', args.get('return') ?? 'UNKNOWN');
    const stop = new AbortController();
    const link = linkSignals(...(signal ? [signal, stop.signal] : [stop.signal]));
    const both = link.signal;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<QueryResult>((resolve) => {
      timer = setTimeout(() => {
        stop.abort(new Error('timed out'));
        resolve({
          command: 'check_timeout',
          result: onTimeout,
          message: `Command ${command} timed out after ${seconds} s`,
          perf: [],
        });
      }, seconds * 1000);
    });
    try {
      const r = await Promise.race([query(command, inner, { signal: both }), late]);
      return { ...r, command: 'check_timeout' };
    } finally {
      link.release();
      clearTimeout(timer);
    }
  });
}

const RANK: Readonly<Record<Status, number>> = { 0: 0, 1: 2, 2: 3, 3: 1 };

/** Order of badness for combining: CRITICAL > WARNING > UNKNOWN > OK. */
export function worst(a: Status, b: Status): Status {
  const rank = (s: Status): number => RANK[s];
  return rank(b) > rank(a) ? b : a;
}

function statusArgument(key: string, v: string): Status {
  const s = parseStatus(v) ?? ({ o: 0, w: 1, c: 2, u: 3 } as Record<string, Status>)[v.trim().toLowerCase()];
  if (s === undefined) throw new ArgumentError(`${key}=${v} is not a status (OK, WARNING, CRITICAL, UNKNOWN)`);
  return s;
}

/** Split `... -- inner args` and parse the rest; short keys (o=, q=, ...) map to long ones. */
function commandArgs(
  tokens: readonly string[],
  options: Readonly<Record<string, OptionDef>>,
  short: Readonly<Record<string, string>>,
): { args: CheckArguments; command: string; inner: string[] } {
  const dash = tokens.indexOf('--');
  const own = (dash >= 0 ? tokens.slice(0, dash) : tokens).map((t) => {
    const eq = t.indexOf('=');
    const k = eq < 0 ? t : t.slice(0, eq);
    const long = short[k.toLowerCase()];
    return long !== undefined ? `${long}${eq < 0 ? '' : t.slice(eq)}` : t;
  });
  const args = parseArguments(own, options);
  const command = args.get('command');
  if (!command) throw new ArgumentError('command=... is required');
  return { args, command, inner: [...args.all('arguments'), ...(dash >= 0 ? tokens.slice(dash + 1) : [])] };
}

async function guard(name: string, fn: () => Promise<QueryResult>): Promise<QueryResult> {
  try {
    return await fn();
  } catch (err) {
    return {
      command: name,
      result: UNKNOWN,
      message: err instanceof ArgumentError ? err.message : `${name} failed: ${(err as Error).message}`,
      perf: [],
    };
  }
}
