/**
 * Encoding and decoding of the plugin messages (proto/plugin.proto) with the
 * static protobufjs code in generated/. Decoding checks required fields and
 * turns every problem into an AgentError with code AGENT_ERR_PROTOBUF, so a
 * garbage frame never escapes as a raw exception. Also converts between the
 * neutral QueryResult shape and QueryResponseMessage.Response.
 */
import type { Plugin } from './generated/plugin.js';
import { proto } from './load-generated.js';
import { AgentError, errorMessage } from '../../errors.js';
import type { PerfValue, QueryResult } from '../result.js';
import { toStatus } from '../result.js';

// The generated code is loaded at the first message (load-generated.ts): its types are here, its
// values through proto().
export type { Plugin };
export { proto };

interface Codec<T> {
  encode(message: T): { finish(): Uint8Array };
  decode(bytes: Uint8Array): T;
}

/** The messages that cross the plugin boundary whole, by name (each a class of the generated Plugin). */
export type MessageName =
  | 'QueryRequestMessage'
  | 'QueryResponseMessage'
  | 'ExecuteRequestMessage'
  | 'ExecuteResponseMessage'
  | 'SubmitResponseMessage'
  | 'LogEntry'
  | 'QuerySettingsRequestMessage'
  | 'QuerySettingsResponseMessage';
type MessageTypes = Pick<typeof Plugin, MessageName>;

/** Encode a message; missing required fields are an AgentError, not a silent default. */
export function encode<N extends MessageName>(name: N, message: Parameters<MessageTypes[N]['encode']>[0]): Uint8Array {
  const type = proto()[name] as unknown as Codec<unknown> & { verify(m: unknown): string | null };
  const problem = type.verify(message);
  if (problem) throw new AgentError('AGENT_ERR_PROTOBUF', [name, problem]);
  return type.encode(message).finish();
}

/** Decode a message; truncated bytes, wrong wire types and missing required fields are AgentErrors. */
export function decode<N extends MessageName>(name: N, bytes: Uint8Array): ReturnType<MessageTypes[N]['decode']> {
  const type = proto()[name] as unknown as Codec<unknown>;
  try {
    return type.decode(bytes) as ReturnType<MessageTypes[N]['decode']>;
  } catch (err) {
    throw new AgentError('AGENT_ERR_PROTOBUF', [name, errorMessage(err)], { cause: err });
  }
}

/** What a header may carry besides its type; an absent (or empty) field is left out. */
export interface HeaderFields {
  id?: Plugin.Header.$Properties['id'];
  sender?: string | null | undefined;
  recipient?: string | null | undefined;
}

/**
 * The one header builder of the agent (the in-process core, the agent
 * protocol's client and server): the type, our version as both version and
 * highest version, and the id, sender and recipient when given.
 */
export function messageHeader(type: Plugin.Header.Type, fields: HeaderFields = {}): Plugin.Header.$Properties {
  return {
    type,
    version: proto().Version.VERSION_1,
    max_supported_version: proto().Version.VERSION_1,
    ...(fields.id != null ? { id: fields.id } : {}),
    ...(fields.sender ? { sender: fields.sender } : {}),
    ...(fields.recipient ? { recipient: fields.recipient } : {}),
  };
}

let nextId = 1;
/** A header for a new message of the given type with a fresh id (unless one is given). */
export function header(type: Plugin.Header.Type, extra: HeaderFields = {}): Plugin.Header.$Properties {
  return messageHeader(type, { ...extra, id: extra.id ?? nextId++ });
}

/** The header of an answer to `request`: its id, and its sender and recipient swapped. */
export function answerHeader(request: Plugin.Header.$Properties, type: Plugin.Header.Type): Plugin.Header.$Properties {
  return messageHeader(type, { id: request.id, sender: request.recipient, recipient: request.sender });
}

/** Convert a neutral perf value to PerformanceData: integers as IntValue, other numbers as FloatValue. */
export function perfToMessage(p: PerfValue): Plugin.PerformanceData.$Properties {
  if (typeof p.value === 'string') {
    return { alias: p.alias, type: proto().DataType.STRING, string_value: { value: p.value } };
  }
  // A Nagios range `N:` (alert below N) travels as the number and a `_below` flag.
  const below = (v: number | string | undefined): number | undefined =>
    typeof v === 'string' && /^-?[\d.]+(e[-+]?\d+)?:$/i.test(v) ? Number(v.slice(0, -1)) : undefined;
  const warning = below(p.warning) ?? p.warning;
  const critical = below(p.critical) ?? p.critical;
  const nums = [p.value, warning, critical, p.minimum, p.maximum].filter((v) => typeof v === 'number');
  const allInt =
    nums.every((n) => Number.isSafeInteger(n)) && typeof warning !== 'string' && typeof critical !== 'string';
  const opt = (v: number | string | undefined): { v?: number } => (typeof v === 'number' ? { v } : {});
  const fields = (): Record<string, number | string | boolean> => {
    const o: Record<string, number | string | boolean> = { value: p.value };
    if (p.unit) o.unit = p.unit;
    for (const [k, v] of [
      ['warning', warning],
      ['critical', critical],
      ['minimum', p.minimum],
      ['maximum', p.maximum],
    ] as const) {
      const x = opt(v);
      if (x.v !== undefined) o[k] = x.v;
    }
    if (below(p.warning) !== undefined) o.warning_below = true;
    if (below(p.critical) !== undefined) o.critical_below = true;
    return o;
  };
  return allInt
    ? {
        alias: p.alias,
        type: proto().DataType.INT,
        int_value: fields() as unknown as Plugin.PerformanceData.IntValue.$Properties,
      }
    : {
        alias: p.alias,
        type: proto().DataType.FLOAT,
        float_value: fields() as unknown as Plugin.PerformanceData.FloatValue.$Properties,
      };
}

/** An int64 field as the generated code types it: a number (as configured above), or a Long. */
type WireInt = Plugin.PerformanceData.IntValue.$Properties['value'];

function num(v: WireInt | null | undefined): number | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'number') return v;
  // A Long built by a caller (the generated types allow it).
  return Number(v.toString());
}

/**
 * Whether a decoded message carries `field` (set on the wire): an absent
 * optional field reads as its default from the generated prototype (`''`,
 * 0), so only an own, non-null property counts.
 */
export function isSet<T extends object>(message: T, field: keyof T & string): boolean {
  return Object.hasOwn(message, field) && message[field] !== null && message[field] !== undefined;
}

export function perfFromMessage(p: Plugin.PerformanceData.$Properties): PerfValue {
  const alias = p.alias;
  if (p.string_value) return { alias, value: p.string_value.value };
  if (p.bool_value)
    return { alias, value: p.bool_value.value ? 1 : 0, ...(p.bool_value.unit ? { unit: p.bool_value.unit } : {}) };
  const src: Plugin.PerformanceData.IntValue.$Properties | Plugin.PerformanceData.FloatValue.$Properties =
    p.int_value ?? p.float_value ?? { value: 0 };
  const out: PerfValue = { alias, value: num(src.value) ?? 0 };
  if (src.unit) out.unit = src.unit;
  for (const k of ['warning', 'critical', 'minimum', 'maximum'] as const) {
    if (isSet(src, k)) out[k] = num(src[k]);
  }
  if (src.warning_below && typeof out.warning === 'number') out.warning = `${out.warning}:`;
  if (src.critical_below && typeof out.critical === 'number') out.critical = `${out.critical}:`;
  return out;
}

export function resultToResponse(r: QueryResult, id?: number): Plugin.QueryResponseMessage.Response.$Properties {
  return {
    ...(id !== undefined ? { id } : {}),
    command: r.command,
    arguments: r.arguments ?? [],
    result: r.result,
    message: r.message,
    perf: r.perf.map(perfToMessage),
  };
}

export function responseToResult(r: Plugin.QueryResponseMessage.Response.$Properties): QueryResult {
  return {
    command: r.command,
    // The one clamp (core/result.ts): 0..3 as is, anything else and no result at all UNKNOWN.
    result: toStatus(r.result),
    message: r.message,
    perf: (r.perf ?? []).map(perfFromMessage),
    ...(r.arguments && r.arguments.length > 0 ? { arguments: [...r.arguments] } : {}),
  };
}
