/**
 * CRC-32 as NRPE uses it: the standard reflected CRC (polynomial 0xEDB88320,
 * initial value and final XOR 0xFFFFFFFF), the same as zlib's. Uses
 * `zlib.crc32` where the running Node has it (20.15+), else a table.
 */
import * as zlib from 'node:zlib';

type Crc32 = (data: Uint8Array) => number;

const native = (zlib as unknown as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

/** CRC-32 of `data` as an unsigned 32-bit number. */
export const crc32: Crc32 = typeof native === 'function' ? (data) => native(data) >>> 0 : tableCrc32;

let table: Uint32Array | undefined;

/** The table-driven fallback, exported so tests can compare it with zlib. */
export function tableCrc32(data: Uint8Array): number {
  table ??= buildTable();
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = (crc >>> 8) ^ table[(crc ^ data[i]!) & 0xff]!;
  return (crc ^ 0xffffffff) >>> 0;
}

function buildTable(): Uint32Array {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
}
