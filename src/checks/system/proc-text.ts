/**
 * The text of a /proc file, read synchronously into one buffer kept for the
 * life of the process. A /proc file is made in memory by the kernel as it is
 * read and never waits on a disk, so a synchronous read costs less than the
 * thread-pool round trips of fs/promises (open, stat, read, close: four
 * wakeups of two threads), and the kept buffer spares readFileSync's 64 KiB
 * allocation per call (a /proc file reports size 0): the check_cpu sampler
 * reads /proc/stat every second of the agent's life.
 */
import { closeSync, openSync, readSync } from 'node:fs';

const buffer = Buffer.alloc(64 * 1024);

/** The file's whole text; throws as readFileSync does when it cannot be opened or read. */
export function readProcText(file: string): string {
  const fd = openSync(file, 'r');
  try {
    let length = 0;
    for (let n = -1; n !== 0 && length < buffer.length; length += n)
      n = readSync(fd, buffer, length, buffer.length - length, null);
    if (length < buffer.length) return buffer.toString('utf8', 0, length);
    // Larger than the kept buffer (a command line of more than 64 KiB): the rest in chunks of its own.
    const chunks = [Buffer.from(buffer)];
    for (;;) {
      const chunk = Buffer.alloc(buffer.length);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
