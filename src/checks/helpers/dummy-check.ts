/**
 * check_dummy STATE [TEXT ...] (SNClient+'s; NSClient++ has check_ok and
 * friends instead): answers STATE with TEXT. STATE is 0-3 or a status word
 * (OK, WARNING, CRITICAL, UNKNOWN, also WARN and CRIT); anything else is
 * UNKNOWN naming it, where SNClient+ passes any integer through. No perf
 * data is parsed from TEXT. `check_dummy help` answers the usage.
 */
import { parseStatus, UNKNOWN, type QueryResult } from '../../core/result.js';

export const DUMMY_HELP = [
  'check_dummy: answers the given state with the given text.',
  '',
  'Arguments (positional, not key=value):',
  '  STATE  0, 1, 2, 3 or OK, WARNING (WARN), CRITICAL (CRIT), UNKNOWN; default OK',
  '  TEXT   the message: the remaining arguments joined with spaces; default "Dummy Check"',
  '  help   answer with this help',
].join('\n');

export function checkDummy(args: readonly string[]): Omit<QueryResult, 'command'> {
  const [first] = args;
  if (first === undefined) return { result: 0, message: 'Dummy Check', perf: [] };
  if (args.length === 1 && /^(--)?help$/i.test(first)) return { result: 0, message: DUMMY_HELP, perf: [] };
  const status = parseStatus(first);
  if (status === undefined)
    return {
      result: UNKNOWN,
      message: `check_dummy: cannot read the state '${args[0]}' (use 0-3, OK, WARNING, CRITICAL or UNKNOWN)`,
      perf: [],
    };
  const text = args.slice(1).join(' ');
  return { result: status, message: text === '' ? 'Dummy Check' : text, perf: [] };
}
