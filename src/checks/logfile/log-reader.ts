/**
 * Read the lines appended to a log file since the last call, following
 * rotation and truncation:
 *
 * - a new device/inode at the path (rename and re-create, logrotate's
 *   default) starts the new file at 0; the lines the old file got after our
 *   last call are read first, from the file in the same folder that still
 *   has the old inode (`syslog.1`), when there is one;
 * - a file shorter than our offset was truncated: start at 0;
 * - a file whose first bytes differ from those we saw was truncated and
 *   written again past our offset before we looked (copytruncate): start
 *   at 0. SNClient+ misses this case.
 *
 * Memory is bounded: reading goes in 64 KiB chunks, a line is cut at
 * `maxLineBytes` (the rest of it is skipped), and one call reads at most
 * `maxReadBytes` per file (the next call goes on from there). An
 * unterminated last line is held back until it is complete, unless it is
 * already longer than `maxLineBytes`.
 */
import { open, readdir, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { FINGERPRINT_BYTES, type LogPosition } from './log-positions.js';

export interface ReadLimits {
  /** Line separator bytes (default `\n`; with `\n` a trailing CR is dropped). */
  separator: Buffer;
  maxLineBytes: number;
  maxReadBytes: number;
}

export type LineSink = (text: string, lineNumber: number, file: string) => void;

export interface ReadResult {
  position: LogPosition;
  /** Why reading started at 0: first (never seen), rotated, truncated, replaced; undefined when it went on from the offset. */
  restart?: 'first' | 'rotated' | 'truncated' | 'replaced';
  /** The rotated-away file whose remaining lines were read first. */
  rotatedFrom?: string;
  /** True when maxReadBytes stopped reading before the end of the file. */
  more: boolean;
}

const CHUNK = 64 * 1024;

export async function readNewLines(
  path: string,
  previous: LogPosition | undefined,
  limits: ReadLimits,
  sink: LineSink,
): Promise<ReadResult> {
  const fh = await open(path, 'r');
  try {
    const st = await fh.stat({ bigint: false });
    const head = await readHead(fh, Math.min(FINGERPRINT_BYTES, st.size));
    let start = 0;
    let lines = 0;
    let restart: ReadResult['restart'];
    let rotatedFrom: string | undefined;
    let budget = limits.maxReadBytes;
    if (!previous) restart = 'first';
    else if (previous.dev !== st.dev || previous.ino !== st.ino) {
      restart = 'rotated';
      rotatedFrom = await readRotatedRest(path, previous, limits, sink);
    } else if (st.size < previous.offset) restart = 'truncated';
    else if (!head.subarray(0, previous.head.length).equals(previous.head)) restart = 'replaced';
    else {
      start = previous.offset;
      lines = previous.lines;
    }
    if (rotatedFrom !== undefined) budget = Math.max(0, budget - limits.maxReadBytes / 2);
    const r = await readLines(fh, path, start, lines, budget, limits, sink);
    const position: LogPosition = { dev: st.dev, ino: st.ino, offset: r.offset, lines: r.lines, head };
    const out: ReadResult = { position, more: r.more };
    if (restart) out.restart = restart;
    if (rotatedFrom !== undefined) out.rotatedFrom = rotatedFrom;
    return out;
  } finally {
    await fh.close();
  }
}

async function readHead(fh: FileHandle, n: number): Promise<Buffer> {
  const buf = Buffer.alloc(n);
  let got = 0;
  while (got < n) {
    const { bytesRead } = await fh.read(buf, got, n - got, got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return buf.subarray(0, got);
}

/** Find the rotated-away file (same device and inode) next to `path` and read what it got after our offset. */
async function readRotatedRest(
  path: string,
  previous: LogPosition,
  limits: ReadLimits,
  sink: LineSink,
): Promise<string | undefined> {
  const dir = dirname(path);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return undefined;
  }
  for (const name of names.slice(0, 2000)) {
    const candidate = join(dir, name);
    const st = await stat(candidate).catch(() => undefined);
    if (!st || !st.isFile() || st.dev !== previous.dev || st.ino !== previous.ino) continue;
    if (st.size <= previous.offset) return undefined;
    const fh = await open(candidate, 'r');
    try {
      const head = await readHead(fh, previous.head.length);
      if (!head.equals(previous.head)) return undefined;
      await readLines(fh, candidate, previous.offset, previous.lines, limits.maxReadBytes / 2, limits, sink);
      return candidate;
    } finally {
      await fh.close();
    }
  }
  return undefined;
}

/** Emit complete lines from `start`; answers the offset after the last line consumed. */
async function readLines(
  fh: FileHandle,
  file: string,
  start: number,
  lineNo: number,
  budget: number,
  limits: ReadLimits,
  sink: LineSink,
): Promise<{ offset: number; lines: number; more: boolean }> {
  const sep = limits.separator;
  const crlf = sep.length === 1 && sep[0] === 0x0a;
  let pos = start;
  let consumed = start;
  let lines = lineNo;
  let carry = Buffer.alloc(0);
  let skipping = false;
  const chunk = Buffer.alloc(CHUNK);
  const emit = (bytes: Buffer): void => {
    lines++;
    let text = bytes;
    if (crlf && text.length > 0 && text[text.length - 1] === 0x0d) text = text.subarray(0, text.length - 1);
    sink(text.toString('utf8'), lines, file);
  };
  while (pos - start < budget) {
    const { bytesRead } = await fh.read(chunk, 0, Math.min(CHUNK, Math.max(1, budget - (pos - start))), pos);
    if (bytesRead === 0) return { offset: consumed, lines, more: false };
    pos += bytesRead;
    const data =
      carry.length > 0
        ? Buffer.concat([carry, chunk.subarray(0, bytesRead)])
        : Buffer.from(chunk.subarray(0, bytesRead));
    const dataStart = pos - data.length;
    let from = 0;
    for (;;) {
      const at = data.indexOf(sep, from);
      if (at < 0) break;
      if (skipping) skipping = false;
      else emit(data.subarray(from, Math.min(at, from + limits.maxLineBytes)));
      from = at + sep.length;
      consumed = dataStart + from;
    }
    carry = data.subarray(from);
    if (carry.length > limits.maxLineBytes) {
      // A line longer than the limit: report its start now, skip the rest up to its end.
      if (!skipping) emit(carry.subarray(0, limits.maxLineBytes));
      skipping = true;
      consumed = dataStart + data.length;
      carry = Buffer.alloc(0);
    }
  }
  return { offset: consumed, lines, more: true };
}
