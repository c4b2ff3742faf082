/**
 * The kernel's memory page size, for the page counts of /proc/<pid>/stat:
 * 4 KiB on x86_64, but 16 or 64 KiB on some arm64 kernels. Node has no
 * sysconf(_SC_PAGESIZE); the kernel hands every process its page size in
 * the auxiliary vector (AT_PAGESZ, type 6), which /proc/self/auxv holds as
 * pairs of native words (8 bytes each, little-endian on the machines the
 * package is built for). Read once; 4096 when it cannot be read.
 */
import { readFileSync } from 'node:fs';

const AT_PAGESZ = 6n;
let size: number | undefined;

export function pageSize(): number {
  if (size === undefined) size = fromAuxv() ?? 4096;
  return size;
}

function fromAuxv(): number | undefined {
  try {
    const auxv = readFileSync('/proc/self/auxv');
    for (let at = 0; at + 16 <= auxv.length; at += 16)
      if (auxv.readBigUInt64LE(at) === AT_PAGESZ) return Number(auxv.readBigUInt64LE(at + 8));
  } catch {
    // not Linux, or /proc hidden: the common size
  }
  return undefined;
}
