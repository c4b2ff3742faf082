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

/** The file's text (its first 64 KiB); throws as readFileSync does when it cannot be opened or read. */
export function readProcText(file: string): string {
  const fd = openSync(file, 'r');
  try {
    let length = 0;
    for (let n = -1; n !== 0 && length < buffer.length; length += n)
      n = readSync(fd, buffer, length, buffer.length - length, null);
    return buffer.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
}
