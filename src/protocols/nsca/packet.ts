/**
 * NSCA 2.x packets (nsca's include/common.h), all integers big-endian:
 *
 * - init packet, server to client on connect: iv(128) timestamp(4) = 132 bytes.
 * - data packet v3: packet_version(2) = 3, alignment(2), crc32(4),
 *   timestamp(4), return_code(2), host_name(64), svc_description(128),
 *   plugin_output(payload length), padded to a multiple of 4 (the C
 *   struct's alignment): 720 bytes for a payload of 512 (nsca 2.7,
 *   NSClient++'s default and send_nsca's legacy mode), 4304 for 4096
 *   (nsca 2.9 and later). The daemon accepts exactly those two sizes.
 *
 * As send_nsca: the packet is filled with random bytes first, each text
 * is cut to its field less one byte and NUL-terminated, the timestamp is
 * the one of the init packet, and the CRC32 is taken over the packet with
 * its crc32 field zeroed, before encryption. A service description that is
 * empty makes the daemon write a host check result.
 */
import { randomFillSync } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { TRANSMITTED_IV_SIZE } from './crypt.js';

export const NSCA_PORT = 5667;
export const INIT_PACKET_SIZE = TRANSMITTED_IV_SIZE + 4;
export const HOST_NAME_LENGTH = 64;
export const DESCRIPTION_LENGTH = 128;
const OUTPUT_OFFSET = 14 + HOST_NAME_LENGTH + DESCRIPTION_LENGTH;

export interface NscaResult {
  host: string;
  /** Empty for a host check result. */
  service: string;
  /** 0-3. */
  code: number;
  /** `message|perf`, cut to the payload length less one byte. */
  output: string;
}

export interface InitPacket {
  iv: Buffer;
  timestamp: number;
}

export function parseInitPacket(b: Buffer): InitPacket {
  if (b.length !== INIT_PACKET_SIZE) throw new Error(`init packet of ${b.length} bytes, expected ${INIT_PACKET_SIZE}`);
  return { iv: Buffer.from(b.subarray(0, TRANSMITTED_IV_SIZE)), timestamp: b.readUInt32BE(TRANSMITTED_IV_SIZE) };
}

/** Size of a data packet for a plugin output field of `payloadLength` bytes. */
export function packetSize(payloadLength: number): number {
  return Math.ceil((OUTPUT_OFFSET + payloadLength) / 4) * 4;
}

/** Encodes one data packet (unencrypted). */
export function encodeDataPacket(r: NscaResult, timestamp: number, payloadLength: number): Buffer {
  const buf = Buffer.allocUnsafe(packetSize(payloadLength));
  randomFillSync(buf);
  buf.writeInt16BE(3, 0);
  buf.writeUInt32BE(0, 4);
  buf.writeUInt32BE(timestamp >>> 0, 8);
  buf.writeInt16BE(r.code, 12);
  writeText(buf, 14, HOST_NAME_LENGTH, r.host);
  writeText(buf, 78, DESCRIPTION_LENGTH, r.service);
  writeText(buf, OUTPUT_OFFSET, payloadLength, r.output);
  buf.writeUInt32BE(crc32(buf), 4);
  return buf;
}

/** Writes `text` as UTF-8 cut to `size - 1` bytes (at a character boundary), then a NUL. */
function writeText(buf: Buffer, offset: number, size: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let n = Math.min(bytes.length, size - 1);
  // Do not leave half a UTF-8 sequence: back off over continuation bytes.
  if (n < bytes.length) while (n > 0 && (bytes.readUInt8(n) & 0xc0) === 0x80) n--;
  bytes.copy(buf, offset, 0, n);
  buf[offset + n] = 0;
}
