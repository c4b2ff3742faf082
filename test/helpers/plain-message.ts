/**
 * The plain-object form of a decoded protobuf message, as protobufjs's
 * toObject({ longs: Number }) gave it before the generated code was trimmed
 * to encode/decode/verify: the fields set on the wire (own properties),
 * int64 values as numbers, enums as numbers, empty repeated fields left out.
 */
export function plainMessage(message: unknown): unknown {
  if (Array.isArray(message)) return message.map(plainMessage);
  if (message === null || typeof message !== 'object') return message;
  if (isLong(message)) return message.toNumber();
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(message)) {
    if (value === null || value === undefined) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    out[key] = plainMessage(value);
  }
  return out;
}

function isLong(v: object): v is { toNumber(): number } {
  return 'low' in v && 'high' in v && 'unsigned' in v && typeof (v as { toNumber?: unknown }).toNumber === 'function';
}
