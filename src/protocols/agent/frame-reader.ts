/**
 * Splits a byte stream into agent-protocol frames (see framing.ts).
 *
 * Contract: `push(chunk)` returns every complete frame the bytes so far
 * hold, in order. A header with a wrong magic, an unknown frame version or
 * a body length over the limit means the stream can no longer be split
 * reliably: `push` then reports `fatal` (with the frames before the bad
 * header) and ignores everything pushed afterwards. The limit is checked as
 * soon as a header is complete, so an oversized frame is never buffered.
 *
 * Cost is linear in the bytes received, however they are split: a partial
 * frame is appended into one growing buffer (capacity doubled when full),
 * never re-joined with everything before it on each chunk, so a 1 MiB frame
 * sent in 1-byte TLS records costs one copy per byte, not a copy of all
 * pending bytes per record. Frames wholly inside one chunk are handed out
 * without copying; a frame assembled from several chunks gets its own copy
 * of the body (the buffer is reused for the next frame).
 */
import { FRAME_VERSION, HEADER_SIZE, MAGIC_0, MAGIC_1, type Frame } from './framing.js';

export interface ReadResult {
  frames: Frame[];
  /** Why the stream cannot be read further; set once, on the push that found it. */
  fatal?: string;
}

/** A buffer held while idle is given back when larger than this. */
const KEEP_CAPACITY = 64 * 1024;

export class FrameReader {
  /** Bytes of a partial frame: store[start, end). */
  private store = Buffer.alloc(0);
  private start = 0;
  private end = 0;
  /** Total size of the partial frame once its header is in; 0 while unknown. */
  private need = 0;
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
    return this.end - this.start;
  }

  push(chunk: Uint8Array): ReadResult {
    const frames: Frame[] = [];
    if (this.failed) return { frames };
    if (this.need > 0 && this.buffered + chunk.length < this.need) {
      // The common case of a trickled frame: just keep the bytes.
      this.append(chunk);
      return { frames };
    }
    const input = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.buffered === 0) {
      // Nothing pending: read frames straight out of the chunk, keep only its tail.
      const { pos, need, fatal } = this.parse(input, 0, input.length, frames, false);
      if (fatal !== undefined) return this.fail(frames, fatal);
      this.need = need ?? 0;
      if (need !== undefined) this.reserve(need);
      if (pos < input.length) this.append(input.subarray(pos));
      return { frames };
    }
    this.append(input);
    const { pos, need, fatal } = this.parse(this.store, this.start, this.end, frames, true);
    if (fatal !== undefined) return this.fail(frames, fatal);
    this.start = pos;
    this.need = need ?? 0;
    if (this.start === this.end) this.reset();
    // Room for the whole frame at once, so its bytes are not moved again.
    else if (need !== undefined) this.reserve(need);
    return { frames };
  }

  /**
   * Frames in buf[pos, end): returns where the first incomplete frame
   * starts and, once its header is known, its total size (`need`); or the
   * fatal problem. `copy`: bodies are copied out of buf.
   */
  private parse(
    buf: Buffer,
    pos: number,
    end: number,
    frames: Frame[],
    copy: boolean,
  ): { pos: number; need?: number; fatal?: string } {
    // Each round either consumes a whole frame or leaves the loop.
    while (end - pos >= 2) {
      if (buf[pos] !== MAGIC_0 || buf[pos + 1] !== MAGIC_1) {
        return {
          pos,
          fatal: `bad magic 0x${hex(buf.readUInt8(pos))}${hex(buf.readUInt8(pos + 1))} (expected 0x4150, "AP")`,
        };
      }
      if (end - pos < HEADER_SIZE) break;
      if (buf[pos + 2] !== FRAME_VERSION)
        return { pos, fatal: `unsupported frame version ${buf[pos + 2]} (this agent reads ${FRAME_VERSION})` };
      const length = buf.readUInt32BE(pos + 8);
      if (length > this.maxBody)
        return { pos, fatal: `frame of ${length} bytes exceeds the limit of ${this.maxBody} bytes` };
      if (end - pos < HEADER_SIZE + length) return { pos, need: HEADER_SIZE + length };
      const body = buf.subarray(pos + HEADER_SIZE, pos + HEADER_SIZE + length);
      frames.push({
        kind: buf.readUInt8(pos + 3),
        flags: buf.readUInt8(pos + 4),
        body: copy ? Buffer.from(body) : body,
      });
      pos += HEADER_SIZE + length;
    }
    return { pos };
  }

  /** Appends bytes after the pending ones, growing the buffer by doubling. */
  private append(bytes: Uint8Array): void {
    const n = bytes.length;
    if (this.end + n > this.store.length) this.reserve(this.buffered + n);
    // A few bytes are cheaper to copy here than through a native call.
    if (n <= 16) for (let i = 0; i < n; i++) this.store[this.end + i] = bytes[i]!;
    else this.store.set(bytes, this.end);
    this.end += n;
  }

  /** Makes room for `total` pending bytes from store[start]. */
  private reserve(total: number): void {
    if (this.start + total <= this.store.length) return;
    const pending = this.store.subarray(this.start, this.end);
    if (total <= this.store.length) {
      pending.copy(this.store, 0);
    } else {
      const next = Buffer.allocUnsafe(Math.max(total, this.store.length * 2, 256));
      pending.copy(next, 0);
      this.store = next;
    }
    this.end -= this.start;
    this.start = 0;
  }

  private reset(): void {
    this.start = 0;
    this.end = 0;
    this.need = 0;
    if (this.store.length > KEEP_CAPACITY) this.store = Buffer.alloc(0);
  }

  private fail(frames: Frame[], reason: string): ReadResult {
    this.failed = true;
    this.reset();
    this.store = Buffer.alloc(0);
    return { frames, fatal: reason };
  }
}

function hex(n: number): string {
  return n.toString(16).padStart(2, '0');
}
