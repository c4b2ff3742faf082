/**
 * Splits a byte stream into agent-protocol frames (see framing.ts).
 *
 * Contract: `push(chunk)` returns every complete frame the bytes so far
 * hold, in order. A header with a wrong magic, an unknown frame version or
 * a body length over the limit means the stream can no longer be split
 * reliably: `push` then reports `fatal` (with the frames before the bad
 * header) and ignores everything pushed afterwards. The limit is checked as
 * soon as a header is complete, so an oversized frame is never buffered.
 */
import { FRAME_VERSION, HEADER_SIZE, MAGIC_0, MAGIC_1, type Frame } from './framing.js';

export interface ReadResult {
  frames: Frame[];
  /** Why the stream cannot be read further; set once, on the push that found it. */
  fatal?: string;
}

export class FrameReader {
  private pending: Buffer | undefined;
  private failed = false;

  constructor(
    /** Largest body accepted, in bytes. */
    private readonly maxBody: number,
  ) {}

  /** True once a fatal problem was reported. */
  get broken(): boolean {
    return this.failed;
  }

  /** Bytes held while waiting for the rest of a frame. */
  get buffered(): number {
    return this.pending?.length ?? 0;
  }

  push(chunk: Uint8Array): ReadResult {
    const frames: Frame[] = [];
    if (this.failed) return { frames };
    let buf = this.pending === undefined ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) : Buffer.concat([this.pending, chunk]);
    this.pending = undefined;
    let pos = 0;
    // Each round either consumes a whole frame or leaves the loop.
    while (buf.length - pos >= 2) {
      if (buf[pos] !== MAGIC_0 || buf[pos + 1] !== MAGIC_1) {
        return this.fail(frames, `bad magic 0x${hex(buf[pos]!)}${hex(buf[pos + 1]!)} (expected 0x4150, "AP")`);
      }
      if (buf.length - pos < HEADER_SIZE) break;
      if (buf[pos + 2] !== FRAME_VERSION) return this.fail(frames, `unsupported frame version ${buf[pos + 2]} (this agent reads ${FRAME_VERSION})`);
      const length = buf.readUInt32BE(pos + 8);
      if (length > this.maxBody) return this.fail(frames, `frame of ${length} bytes exceeds the limit of ${this.maxBody} bytes`);
      if (buf.length - pos < HEADER_SIZE + length) break;
      frames.push({ kind: buf[pos + 3]!, flags: buf[pos + 4]!, body: buf.subarray(pos + HEADER_SIZE, pos + HEADER_SIZE + length) });
      pos += HEADER_SIZE + length;
    }
    if (pos < buf.length) {
      // Copy a small tail so that a big chunk is not kept alive by it.
      const rest = buf.subarray(pos);
      this.pending = rest.length < 4096 ? Buffer.from(rest) : rest;
    }
    return { frames };
  }

  private fail(frames: Frame[], reason: string): ReadResult {
    this.failed = true;
    this.pending = undefined;
    return { frames, fatal: reason };
  }
}

function hex(n: number): string {
  return n.toString(16).padStart(2, '0');
}
