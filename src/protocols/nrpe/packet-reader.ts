/**
 * Incremental NRPE packet reader. Bytes arrive in chunks of any size (a peer
 * may split or merge writes); `next()` hands out complete packets in order.
 * Size limits are checked as soon as a header is known, so a hostile peer
 * can never make the reader buffer more than one packet's worth of bytes.
 */
import { AgentError } from '../../errors.js';
import { crcMatches, textOf, type NrpePacket, type PacketVersion } from './packet.js';

export interface PacketReaderOptions {
  /** v2 payload length; a v2 packet is exactly 12 + this many bytes. */
  payloadLength: number;
  /** Largest v3/v4 buffer_length accepted. */
  maxBufferLength: number;
  /** Versions accepted; others are an error as soon as the first 2 bytes arrive. */
  versions?: readonly PacketVersion[];
}

/** A packet that cannot be read: bad version, size, type or CRC. */
export function packetError(detail: string): AgentError {
  return new AgentError('AGENT_ERR_NRPE_PACKET', [detail]);
}

export class PacketReader {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly options: PacketReaderOptions) {}

  /** Bytes received and not yet handed out as packets. */
  get buffered(): number {
    return this.size;
  }

  /** Adds received bytes. */
  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  /**
   * The next complete packet, or undefined when more bytes are needed.
   * Throws an AgentError (AGENT_ERR_NRPE_PACKET) for a packet that can never
   * be valid: unsupported version, bad size, bad type or CRC mismatch.
   */
  next(): NrpePacket | undefined {
    const total = this.expectedSize();
    if (total === undefined || this.size < total) return undefined;
    return this.take(total);
  }

  /**
   * At end of stream: a v3 packet that lacks only its 3 trailing zero bytes
   * (check_nrpe reads and some peers send 16 + buffer_length) is completed
   * and returned; otherwise undefined.
   */
  finish(): NrpePacket | undefined {
    const total = this.expectedSize();
    if (total === undefined || this.size >= total) return this.next();
    const head = this.peek(16);
    if (head.readInt16BE(0) !== 3 || this.size < total - 3) return undefined;
    this.push(Buffer.alloc(total - this.size));
    return this.next();
  }

  /** Describes a partial packet left at end of stream, e.g. `20 of 1036 bytes`. */
  describePartial(): string {
    const total = this.expectedSize();
    return total === undefined ? `${this.size} bytes of a header` : `${this.size} of ${total} bytes`;
  }

  /** Total size of the packet at the head of the buffer, once its header is known. */
  private expectedSize(): number | undefined {
    if (this.size < 2) return undefined;
    const version = this.peek(2).readInt16BE(0);
    const allowed = this.options.versions ?? [2, 3, 4];
    if (!(allowed as readonly number[]).includes(version)) {
      throw packetError(`unsupported packet version ${version}`);
    }
    if (version === 2) return 12 + this.options.payloadLength;
    if (this.size < 16) return undefined;
    const bufferLength = this.peek(16).readInt32BE(12);
    if (bufferLength < 0 || bufferLength > this.options.maxBufferLength) {
      throw packetError(`buffer length ${bufferLength} is outside 0..${this.options.maxBufferLength}`);
    }
    return (version === 3 ? 19 : 16) + bufferLength;
  }

  private take(total: number): NrpePacket {
    const bytes = this.peek(total);
    const rest = this.size - total;
    const [first, ...others] = this.chunks;
    this.chunks = rest > 0 ? (first && first.length > total ? [first.subarray(total), ...others] : others) : [];
    this.size = rest;
    const version = bytes.readInt16BE(0) as PacketVersion;
    const type = bytes.readInt16BE(2);
    if (type !== 1 && type !== 2 && type !== 3) throw packetError(`unknown packet type ${type}`);
    if (!crcMatches(bytes)) throw packetError('CRC mismatch');
    const buffer = version === 2 ? bytes.subarray(10, total - 2) : bytes.subarray(16, 16 + bytes.readInt32BE(12));
    return { version, type: type, result: bytes.readInt16BE(8), text: Buffer.from(textOf(buffer)) };
  }

  /** The first `n` buffered bytes as one buffer (joins chunks, keeps them joined). */
  private peek(n: number): Buffer {
    let head = this.chunks[0];
    if (head === undefined || head.length < n) {
      head = Buffer.concat(this.chunks, this.size);
      this.chunks = [head];
    }
    return head.subarray(0, n);
  }
}
