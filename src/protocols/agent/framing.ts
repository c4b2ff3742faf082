/**
 * Frames of the agent protocol: a fixed 12-byte header followed by the
 * protobuf bytes of one plugin message (proto/plugin.proto).
 *
 * ```
 * offset size field
 *  0     2    magic 0x41 0x50 ("AP")
 *  2     1    frame version, 1
 *  3     1    kind (FrameKind below): which message the body holds
 *  4     1    flags: bit 0 = the sender closes the connection after this frame;
 *             other bits are 0 when sent and ignored when read
 *  5     3    reserved, 0 when sent, ignored when read
 *  8     4    body length in bytes, unsigned big-endian
 * 12     n    body: the protobuf message
 * ```
 *
 * The plugin messages share no envelope, so the kind byte says which one a
 * body is; the message's own Header (`id`, `version`,
 * `max_supported_version`) pairs answers with requests and negotiates the
 * message version. This file only builds and inspects frames; it never
 * touches a socket.
 */
import { encode, messageHeader, type Plugin, proto, type MessageName } from '../../core/plugin/codec.js';

/** The agent protocol's default port (both the client and AgentServer). */
export const AGENT_PORT = 5668;

export const MAGIC_0 = 0x41;
export const MAGIC_1 = 0x50;
export const FRAME_VERSION = 1;
export const HEADER_SIZE = 12;
/** Default largest body a server accepts (the `max frame size` setting). */
export const DEFAULT_MAX_FRAME = 1024 * 1024;
/** Largest body a client accepts in an answer. */
export const CLIENT_MAX_FRAME = 16 * 1024 * 1024;
/** The only message version this agent speaks (Plugin.Version.VERSION_1). */
export const MESSAGE_VERSION = 1;

export const FLAG_CLOSE = 0x01;

export enum FrameKind {
  QueryRequest = 1,
  QueryResponse = 2,
  ExecRequest = 3,
  ExecResponse = 4,
  Submit = 5,
  SubmitAck = 6,
  Error = 7,
}

/** The plugin message each kind carries. SubmitAck and Error carry a QueryResponseMessage. */
export const KIND_MESSAGE: Readonly<Record<FrameKind, MessageName>> = {
  [FrameKind.QueryRequest]: 'QueryRequestMessage',
  [FrameKind.QueryResponse]: 'QueryResponseMessage',
  [FrameKind.ExecRequest]: 'ExecuteRequestMessage',
  [FrameKind.ExecResponse]: 'ExecuteResponseMessage',
  [FrameKind.Submit]: 'SubmitResponseMessage',
  [FrameKind.SubmitAck]: 'QueryResponseMessage',
  [FrameKind.Error]: 'QueryResponseMessage',
};

export interface Frame {
  kind: number;
  flags: number;
  body: Uint8Array;
}

const KINDS: ReadonlySet<number> = new Set(Object.values(FrameKind).filter((v) => typeof v === 'number'));
const REQUEST_KINDS: ReadonlySet<number> = new Set([FrameKind.QueryRequest, FrameKind.ExecRequest, FrameKind.Submit]);

/** A frame's kind byte as read from the wire, narrowed to a FrameKind when it is one. */
export function isFrameKind(kind: number): kind is FrameKind {
  return KINDS.has(kind);
}

/** The kinds a client may send: QueryRequest, ExecRequest and Submit. */
export function isRequestKind(kind: number): kind is FrameKind.QueryRequest | FrameKind.ExecRequest | FrameKind.Submit {
  return REQUEST_KINDS.has(kind);
}

export function kindName(kind: number): string {
  return isFrameKind(kind) ? FrameKind[kind] : `unknown kind ${kind}`;
}

/** One frame as bytes. Throws RangeError when the body does not fit the 4-byte length. */
export function encodeFrame(kind: FrameKind, body: Uint8Array, flags = 0): Buffer {
  if (body.length > 0xffffffff) throw new RangeError(`frame body of ${body.length} bytes is too long`);
  const out = Buffer.allocUnsafe(HEADER_SIZE + body.length);
  out[0] = MAGIC_0;
  out[1] = MAGIC_1;
  out[2] = FRAME_VERSION;
  out[3] = kind;
  out[4] = flags & 0xff;
  out[5] = 0;
  out[6] = 0;
  out[7] = 0;
  out.writeUInt32BE(body.length, 8);
  out.set(body, HEADER_SIZE);
  return out;
}

/**
 * The body of an Error frame: a QueryResponseMessage whose header carries
 * the id of the request it answers (absent when no id could be read) and
 * one payload with result UNKNOWN and the problem as its message.
 */
export function errorBody(message: string, id?: number, command = ''): Uint8Array {
  return encode('QueryResponseMessage', {
    header: replyHeader(proto().Header.Type.QUERY_RESPONSE, id),
    payload: [{ command, result: proto().ResultCode.UNKNOWN, message }],
  });
}

/** A header for an answer: our version, our highest version, the request's id when known (codec.ts messageHeader). */
export function replyHeader(type: Plugin.Header.Type, id?: number): Plugin.Header.$Properties {
  return messageHeader(type, { id });
}

export interface PeekedHeader {
  id?: number;
  version?: number;
  maxSupportedVersion?: number;
}

/**
 * Read what can be read of the Header (field 1) of any plugin message
 * without validating the rest: a broken payload or a missing required
 * field elsewhere still leaves the id recoverable. Never throws; fields
 * that cannot be read are absent. Ids above 2^53 lose precision.
 */
export function peekHeader(body: Uint8Array): PeekedHeader {
  const header = findField(body, 0, body.length, 1);
  if (header === undefined || header.wire !== 2) return {};
  const out: PeekedHeader = {};
  const id = findField(body, header.start, header.end, 19);
  const version = findField(body, header.start, header.end, 2);
  const max = findField(body, header.start, header.end, 3);
  if (id?.wire === 0) out.id = id.value;
  if (version?.wire === 0) out.version = version.value;
  if (max?.wire === 0) out.maxSupportedVersion = max.value;
  return out;
}

// ---------------------------------------------------------------- helpers

interface FieldHit {
  wire: number;
  /** Varint value (wire 0). */
  value: number;
  /** Bounds of a length-delimited value (wire 2). */
  start: number;
  end: number;
}

/** The last occurrence of a field between start and end (protobuf: last one wins), or undefined. */
function findField(buf: Uint8Array, start: number, end: number, field: number): FieldHit | undefined {
  let pos = start;
  let hit: FieldHit | undefined;
  // Each round consumes at least one byte, so the loop ends within end - start rounds.
  while (pos < end) {
    const tag = readVarint(buf, pos, end);
    if (tag === undefined) return hit;
    pos = tag.next;
    const wire = tag.value % 8;
    const number = Math.floor(tag.value / 8);
    if (wire === 0) {
      const v = readVarint(buf, pos, end);
      if (v === undefined) return hit;
      if (number === field) hit = { wire, value: v.value, start: pos, end: v.next };
      pos = v.next;
    } else if (wire === 2) {
      const len = readVarint(buf, pos, end);
      if (len === undefined || len.next + len.value > end) return hit;
      if (number === field) hit = { wire, value: 0, start: len.next, end: len.next + len.value };
      pos = len.next + len.value;
    } else if (wire === 1) {
      pos += 8;
    } else if (wire === 5) {
      pos += 4;
    } else {
      return hit;
    }
  }
  return hit;
}

function readVarint(buf: Uint8Array, start: number, end: number): { value: number; next: number } | undefined {
  let value = 0;
  let scale = 1;
  for (let pos = start; pos < end && pos < start + 10; pos++) {
    const byte = buf[pos];
    if (byte === undefined) return undefined;
    value += (byte & 0x7f) * scale;
    scale *= 128;
    if ((byte & 0x80) === 0) return { value, next: pos + 1 };
  }
  return undefined;
}
