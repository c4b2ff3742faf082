/**
 * Reading a file the settings name (a `${file:}` secret, a TLS file, a
 * settings file or an included one) without trusting what is behind the
 * name: only a regular file is read, and at most `limit` bytes of it.
 *
 * The file is opened with O_NONBLOCK, so opening a FIFO with no writer
 * returns at once instead of waiting for one, and fstat on the open file
 * says what it is before a single byte is read: a FIFO, a device
 * (`/dev/zero`, a terminal), a folder or a socket is refused. A regular
 * file larger than the limit is refused too (checked on its size, and
 * again while reading: a file that grows, or one of /proc that reports
 * size 0, never yields more than the limit). O_NONBLOCK changes nothing
 * for a regular file.
 *
 * The synchronous form is for the synchronous load paths (variable
 * expansion, the TLS checks); asynchronous callers use the other.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';

/** A `${file:}` secret: a password, a token, a key. */
export const SECRET_FILE_LIMIT = 64 * 1024;
/** A certificate, key, CA bundle or DH parameter file. */
export const TLS_FILE_LIMIT = 1024 * 1024;
/** A settings file, the main one or an included one. */
export const SETTINGS_FILE_LIMIT = 16 * 1024 * 1024;

const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** The error of a file that is not read: its message is the reason in words (errors.ts fsReason shows it as it is); no `code`, unlike an fs error. */
export class NotReadableFileError extends Error {}

/** `1 MiB`, `64 KiB`, `512 bytes`. */
export function byteSize(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a file';
}

function refusal(st: Stats, limit: number): NotReadableFileError | undefined {
  if (st.isDirectory()) return new NotReadableFileError('it is a folder, not a file');
  if (!st.isFile()) return new NotReadableFileError(`not a regular file: it is ${kindOf(st)}`);
  if (st.size > limit) return tooLarge(limit);
  return undefined;
}

function tooLarge(limit: number): NotReadableFileError {
  return new NotReadableFileError(`larger than ${byteSize(limit)}, the limit for this file`);
}

/** The bytes of a regular file of at most `limit` bytes; throws (the fs error, or NotReadableFileError) otherwise. */
export function readRegularFileSync(file: string, limit: number): Buffer {
  const fd = openSync(file, FLAGS);
  try {
    const st = fstatSync(fd);
    const refused = refusal(st, limit);
    if (refused) throw refused;
    let buf: Buffer = Buffer.allocUnsafe(Math.min(limit, st.size) + 1);
    let total = 0;
    for (;;) {
      const n = readSync(fd, buf, total, buf.length - total, null);
      if (n === 0) return buf.subarray(0, total);
      total += n;
      buf = roomAfter(buf, total, limit);
    }
  } finally {
    closeSync(fd);
  }
}

/** {@link readRegularFileSync}, on the thread pool. */
export async function readRegularFile(file: string, limit: number): Promise<Buffer> {
  const handle = await open(file, FLAGS);
  try {
    const st = await handle.stat();
    const refused = refusal(st, limit);
    if (refused) throw refused;
    let buf: Buffer = Buffer.allocUnsafe(Math.min(limit, st.size) + 1);
    let total = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, total, buf.length - total, null);
      if (bytesRead === 0) return buf.subarray(0, total);
      total += bytesRead;
      buf = roomAfter(buf, total, limit);
    }
  } finally {
    await handle.close();
  }
}

/**
 * The buffer to read on into after `total` bytes: the same while it has room; a larger one when
 * the file holds more than its size said (it grew, or it is one of /proc); an error past the limit.
 */
function roomAfter(buf: Buffer, total: number, limit: number): Buffer {
  if (total > limit) throw tooLarge(limit);
  if (total < buf.length) return buf;
  const bigger = Buffer.allocUnsafe(Math.min(limit + 1, buf.length * 2 + 4096));
  buf.copy(bigger, 0, 0, total);
  return bigger;
}
