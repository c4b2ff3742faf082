/**
 * NRPE packets: encoding, CRC checking and the request text conventions.
 *
 * Layouts (all integers big-endian):
 * - v2: version(2) type(2) crc32(4) result(2) buffer(payloadLength) padding(2);
 *   fixed size 12 + payloadLength (1036 by default); the text is at most
 *   payloadLength - 1 bytes, NUL-padded. The CRC covers every byte.
 * - v3/v4: version(2) type(2) crc32(4) result(2) alignment(2) bufferLength(4)
 *   buffer(bufferLength); v3 adds 3 trailing zero bytes. The CRC covers the
 *   packet with crc32 and alignment zeroed (v3: 19 + bufferLength bytes).
 */
import { crc32 } from 'node:zlib';

/** NRPE's default port. */
export const NRPE_PORT = 5666;

/** The request command of a passive result sent over NRPE (`_NRPE_SUBMIT!<alias>!<code>!<message>`); RemoteClient sends it, RemoteServer takes it. */
export const NRPE_SUBMIT_COMMAND = '_NRPE_SUBMIT';

export type PacketVersion = 2 | 3 | 4;
export const QUERY_PACKET = 1;
export const RESPONSE_PACKET = 2;
/** NSClient++ extension: a v2 response with more packets to follow. */
export const RESPONSE_MORE_PACKET = 3;
export type PacketType = 1 | 2 | 3;

/**
 * The v2 buffer compiled into check_nrpe and Debian's nrpe (MAX_PACKETBUFFER_LENGTH):
 * a wire fact, not a setting. check_nrpe pads its v3/v4 queries to a v2
 * packet of this size, and so does encodePacket. The `payload length`
 * settings take their default from the schema (the same 1024).
 */
export const CHECK_NRPE_BUFFER_LENGTH = 1024;
/** Size of check_nrpe's v2 packet; v3/v4 queries are padded to it. */
export const V2_PADDED_SIZE = 12 + CHECK_NRPE_BUFFER_LENGTH;
/** The request check_nrpe sends when no command is given. */
export const NRPE_CHECK = '_NRPE_CHECK';
/** Largest v3/v4 buffer the NRPE daemon accepts; our server's limit. */
export const NRPE_MAX_BUFFER = 65536;

export interface NrpePacket {
  version: PacketVersion;
  type: PacketType;
  /** The result code (int16); meaningless in queries. */
  result: number;
  /** The text: the buffer up to its first NUL (or its end). */
  text: Buffer;
}

export interface EncodeOptions {
  version: PacketVersion;
  type: PacketType;
  result?: number;
  /** The text; longer text is cut (v2: to payloadLength - 1 bytes). */
  text: Buffer | string;
  /** v2 payload length; check_nrpe's 1024 when not given. */
  payloadLength?: number;
}

/**
 * Encodes one packet with its CRC set. Queries (type 1) of v3/v4 are padded
 * to 1036 bytes as check_nrpe does, so an old v2-only peer reads a whole
 * packet; responses carry the text (at most 65535 bytes) and its NUL.
 */
export function encodePacket(o: EncodeOptions): Buffer {
  const result = o.result ?? 0;
  if (o.version !== 2 && typeof o.text === 'string' && o.text.length < NRPE_MAX_BUFFER / 3) {
    // Text that surely fits (3 UTF-8 bytes per UTF-16 unit at most) is written into the packet as it is encoded.
    return encodeV3V4(o, result, Buffer.byteLength(o.text, 'utf8'), (buf) => buf.write(o.text as string, 16, 'utf8'));
  }
  const text = typeof o.text === 'string' ? Buffer.from(o.text, 'utf8') : o.text;
  if (o.version === 2) {
    const payload = o.payloadLength ?? CHECK_NRPE_BUFFER_LENGTH;
    const buf = Buffer.alloc(12 + payload);
    writeHeader(buf, o.version, o.type, result);
    text.copy(buf, 10, 0, Math.min(text.length, payload - 1));
    buf.writeUInt32BE(crc32(buf), 4);
    return buf;
  }
  return encodeV3V4(o, result, text.length, (buf, bufferLength) => text.copy(buf, 16, 0, bufferLength - 1));
}

function encodeV3V4(
  o: EncodeOptions,
  result: number,
  textLength: number,
  writeText: (buf: Buffer, bufferLength: number) => void,
): Buffer {
  const header = o.version === 3 ? 19 : 16;
  let bufferLength = Math.min(textLength, NRPE_MAX_BUFFER - 1) + 1;
  if (o.type === QUERY_PACKET) bufferLength = Math.max(bufferLength, V2_PADDED_SIZE - header);
  const buf = Buffer.alloc(header + bufferLength);
  writeHeader(buf, o.version, o.type, result);
  buf.writeInt32BE(bufferLength, 12);
  writeText(buf, bufferLength);
  buf.writeUInt32BE(crc32(buf), 4);
  return buf;
}

/** True when the CRC stored in a complete packet matches its bytes (see the layouts above). */
export function crcMatches(packet: Buffer): boolean {
  // The CRC of the packet with its crc32 (and v3/v4 alignment) field zeroed, computed piece by piece: no copy.
  let crc = crc32(ZEROS, crc32(packet.subarray(0, 4)));
  crc =
    packet.readUInt16BE(0) === 2
      ? crc32(packet.subarray(8), crc)
      : crc32(packet.subarray(12), crc32(ZEROS.subarray(0, 2), crc32(packet.subarray(8, 10), crc)));
  return crc === packet.readUInt32BE(4);
}

const ZEROS = Buffer.alloc(4);

/** The text of a buffer: up to the first NUL, or all of it. */
export function textOf(buffer: Buffer): Buffer {
  const nul = buffer.indexOf(0);
  return nul === -1 ? buffer : buffer.subarray(0, nul);
}

/** Splits `command!arg!arg` into the command and its arguments. */
export function parseRequest(text: string): { command: string; args: string[] } {
  const [command = '', ...args] = text.split('!');
  return { command, args };
}

/** Builds `command!arg!arg`; an empty command means `_NRPE_CHECK`. */
export function formatRequest(command: string, args: readonly string[] = []): string {
  return [command === '' ? NRPE_CHECK : command, ...args].join('!');
}

function writeHeader(buf: Buffer, version: number, type: number, result: number): void {
  buf.writeInt16BE(version, 0);
  buf.writeInt16BE(type, 2);
  buf.writeInt16BE(result, 8);
}
