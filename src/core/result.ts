import { inRange } from '../in-range.js';
/**
 * The neutral shape of a check result, used by check code and protocol code
 * that does not want to touch protobuf directly. The plugin codec converts it
 * to and from QueryResponseMessage.Response; this file converts it to and
 * from the Nagios text form `message|'label'=value[unit];warn;crit;min;max`.
 */

export const OK = 0;
export const WARNING = 1;
export const CRITICAL = 2;
export const UNKNOWN = 3;
export type Status = 0 | 1 | 2 | 3;

export const STATUS_NAMES = ['OK', 'WARNING', 'CRITICAL', 'UNKNOWN'] as const;

export interface PerfValue {
  alias: string;
  /** A number for int/float perf data, a string for string perf data. */
  value: number | string;
  unit?: string;
  /** Numbers, or Nagios range strings such as `4:5` kept as text. */
  warning?: number | string;
  critical?: number | string;
  minimum?: number;
  maximum?: number;
}

export interface QueryResult {
  command: string;
  result: Status;
  message: string;
  perf: PerfValue[];
  arguments?: string[];
}

export function isStatus(n: unknown): n is Status {
  return n === 0 || n === 1 || n === 2 || n === 3;
}

/**
 * Clamp a code from the wire (NRPE, the agent protocol, a plugin message) or
 * an exit code to a status: 0..3 as is (numbers, numeric strings, int64
 * values), anything else (and no code at all) UNKNOWN. The one clamp.
 */
export function toStatus(code: unknown): Status {
  if (code === null || code === undefined || code === '') return UNKNOWN;
  const n = Number(code);
  return isStatus(n) ? n : UNKNOWN;
}

/** Map an exit code to a status: 0..3 as is, anything else UNKNOWN. */
export function statusFromExitCode(code: number | null): Status {
  return toStatus(code);
}

/**
 * A plugin status as a host check result, the way Nagios and Icinga read
 * one: OK is UP (0), anything else DOWN (1). Icinga 2 refuses any other
 * code for a host (`Invalid status code: 2`). With `keepUnreachable`,
 * CRITICAL stays 2, Nagios's UNREACHABLE, for a Nagios that wants it; a
 * WARNING or UNKNOWN is still DOWN.
 */
export function hostState(code: number, keepUnreachable = false): 0 | 1 | 2 {
  if (code === OK) return 0;
  return keepUnreachable && code === CRITICAL ? 2 : 1;
}

/** Parse `OK`, `WARN`, `WARNING`, `CRIT`, `CRITICAL`, `UNKNOWN` or a number 0..3. */
export function parseStatus(text: string): Status | undefined {
  const t = text.trim().toUpperCase();
  if (/^[0-3]$/.test(t)) return Number(t) as Status;
  switch (t) {
    case 'OK':
      return OK;
    case 'WARN':
    case 'WARNING':
      return WARNING;
    case 'CRIT':
    case 'CRITICAL':
      return CRITICAL;
    case 'UNKNOWN':
    case 'UNKN':
      return UNKNOWN;
    default:
      return undefined;
  }
}

export function unknown(command: string, message: string): QueryResult {
  return { command, result: UNKNOWN, message, perf: [] };
}

function formatNumber(n: number): string {
  if (Number.isInteger(n)) return String(n);
  // Up to 6 significant decimals, without trailing zeros or exponent noise.
  return String(Number(n.toFixed(6)));
}

function quoteLabel(alias: string): string {
  return `'${alias.replace(/'/g, "''")}'`;
}

/** One perf item in Nagios form: `'label'=value[unit];warn;crit;min;max` with trailing empties trimmed. */
export function formatPerf(p: PerfValue): string {
  const val = typeof p.value === 'number' ? formatNumber(p.value) + (p.unit ?? '') : p.value;
  const opt = (v: number | string | undefined): string =>
    v === undefined ? '' : typeof v === 'number' ? formatNumber(v) : v;
  const fields = [opt(p.warning), opt(p.critical), opt(p.minimum), opt(p.maximum)];
  while (fields.length > 0 && fields[fields.length - 1] === '') fields.pop();
  return `${quoteLabel(p.alias)}=${[val, ...fields].join(';')}`;
}

export function formatPerfList(perf: readonly PerfValue[]): string {
  return perf.map(formatPerf).join(' ');
}

/**
 * The Nagios text form of a result in the plugin layout: the first line of
 * the message, `|perf` on that same line (no `|` without perf data), then the
 * rest of the message as long text. Nagios reads perf data from the first
 * line, so a cut long text never loses it.
 *
 * With `maxBytes` (a protocol's payload limit) the text is cut to fit:
 * first from the long text, then from the first line's message, and only
 * when the perf data alone is longer than the limit, whole perf items from
 * the end. A cut never splits a UTF-8 character.
 */
export function toNagios(r: Pick<QueryResult, 'message' | 'perf'>, maxBytes = Infinity): string {
  const nl = r.message.indexOf('\n');
  const first = nl < 0 ? r.message : r.message.slice(0, nl);
  const rest = nl < 0 ? '' : r.message.slice(nl);
  const perf = formatPerfList(r.perf);
  const head = perf ? `${first}|${perf}` : first;
  const headBytes = Buffer.byteLength(head);
  if (headBytes + Buffer.byteLength(rest) <= maxBytes) return head + rest;
  if (headBytes <= maxBytes) return head + cutUtf8(rest, maxBytes - headBytes);
  if (!perf) return cutUtf8(first, maxBytes);
  const perfBytes = Buffer.byteLength(perf) + 1;
  if (perfBytes <= maxBytes) return `${cutUtf8(first, maxBytes - perfBytes)}|${perf}`;
  // Perf data longer than the whole payload: keep whole items from the
  // start, and up to 64 bytes of the first line so the answer still says something.
  const keep = Math.min(Buffer.byteLength(first), 64);
  const items = r.perf.map(formatPerf);
  while (items.length > 0 && Buffer.byteLength(items.join(' ')) + 1 + keep > maxBytes) items.pop();
  const kept = items.join(' ');
  return kept ? `${cutUtf8(first, maxBytes - Buffer.byteLength(kept) - 1)}|${kept}` : cutUtf8(first, maxBytes);
}

/** The longest prefix of text that is at most maxBytes of UTF-8, ending on a character boundary. */
export function cutUtf8(text: string, maxBytes: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return text;
  let end = Math.max(0, maxBytes);
  // end < buf.length here (the text is longer than maxBytes).
  while (end > 0 && (buf.readUInt8(end) & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}

/**
 * Parse Nagios perf data text (`'a b'=1.5ms;2;3;0;10 x=4`). Items that do not
 * parse are kept as string values under their label so that nothing is lost.
 */
export function parsePerf(text: string): PerfValue[] {
  const out: PerfValue[] = [];
  const re = /\s*(?:'((?:[^']|'')*)'|([^=\s]+))=(\S*)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    // One of the two label alternatives took part; the value group always does.
    const alias = m[1] !== undefined ? m[1].replace(/''/g, "'") : inRange(m, 2);
    const [rawValue = '', warn, crit, min, max] = inRange(m, 3).split(';');
    const vm = /^(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(.*)$/.exec(rawValue);
    if (!vm) {
      out.push({ alias, value: rawValue });
      continue;
    }
    const item: PerfValue = { alias, value: Number(inRange(vm, 1)) };
    if (vm[2]) item.unit = vm[2];
    const num = (s: string | undefined): number | string | undefined => {
      if (s === undefined || s === '') return undefined;
      return /^-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$/.test(s) ? Number(s) : s;
    };
    const w = num(warn);
    const c = num(crit);
    const mi = num(min);
    const ma = num(max);
    if (w !== undefined) item.warning = w;
    if (c !== undefined) item.critical = c;
    if (typeof mi === 'number') item.minimum = mi;
    if (typeof ma === 'number') item.maximum = ma;
    out.push(item);
  }
  return out;
}

/**
 * Split plugin output into message and perf data the way Nagios does: the
 * first line's text before `|` is the message, text after `|` on any line is
 * perf data, and further lines without `|` belong to the message.
 */
export function splitOutput(output: string): { message: string; perf: PerfValue[] } {
  const lines = output.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  const msg: string[] = [];
  const perfParts: string[] = [];
  let inLongPerf = false;
  lines.forEach((line, i) => {
    const bar = line.indexOf('|');
    if (i === 0) {
      msg.push(bar >= 0 ? line.slice(0, bar).trimEnd() : line);
      if (bar >= 0) perfParts.push(line.slice(bar + 1));
      return;
    }
    if (inLongPerf) {
      perfParts.push(line);
      return;
    }
    if (bar >= 0) {
      msg.push(line.slice(0, bar).trimEnd());
      perfParts.push(line.slice(bar + 1));
      inLongPerf = true;
      return;
    }
    msg.push(line);
  });
  return { message: msg.join('\n'), perf: parsePerf(perfParts.join(' ')) };
}
