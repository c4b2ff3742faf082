/**
 * The Rijndael block cipher, encryption direction only, for the block sizes
 * AES does not cover: libmcrypt's `rijndael-192` and `rijndael-256` (block
 * of 24 and 32 bytes), which nsca 2.x offers as encryption methods 15 and
 * 16 and NSClient++ uses by default (`encryption = aes` is method 16).
 * node:crypto has only the 16-byte block (AES), which crypt.ts uses for
 * method 14. The key is always 32 bytes here (libmcrypt's key size for
 * every Rijndael variant), so Nk = 8 and there are 14 rounds.
 *
 * FIPS-197 generalised to Nb = 6 and 8 columns as in the Rijndael proposal:
 * ShiftRows moves rows 1..3 by 1,2,3 columns (Nb 4, 6) or 1,3,4 (Nb 8).
 * The state is column-major: byte 4c+r is row r of column c.
 */

const SBOX = buildSbox();

export class RijndaelEncryptor {
  private readonly nb: number;
  private readonly roundKeys: Uint8Array;
  private readonly shifts: readonly number[];
  private readonly tmp: Uint8Array;

  /** `blockBytes`: 16, 24 or 32; `key`: 32 bytes. */
  constructor(blockBytes: 16 | 24 | 32, key: Uint8Array) {
    if (key.length !== 32) throw new Error('Rijndael key must be 32 bytes');
    this.nb = blockBytes / 4;
    this.shifts = this.nb === 8 ? [0, 1, 3, 4] : [0, 1, 2, 3];
    this.roundKeys = expandKey(key, this.nb);
    this.tmp = new Uint8Array(blockBytes);
  }

  /** Encrypts one block in place. */
  encryptBlock(block: Uint8Array): void {
    const nb = this.nb;
    const size = nb * 4;
    const rk = this.roundKeys;
    addRoundKey(block, rk, 0, size);
    for (let round = 1; round <= ROUNDS; round++) {
      const t = this.tmp;
      // SubBytes and ShiftRows together.
      for (let c = 0; c < nb; c++)
        for (const [r, shift] of this.shifts.entries())
          t[4 * c + r] = byte(SBOX, byte(block, 4 * ((c + shift) % nb) + r));
      if (round !== ROUNDS) {
        for (let c = 0; c < nb; c++) {
          const o = 4 * c;
          const a0 = byte(t, o),
            a1 = byte(t, o + 1),
            a2 = byte(t, o + 2),
            a3 = byte(t, o + 3);
          block[o] = xtime(a0) ^ xtime(a1) ^ a1 ^ a2 ^ a3;
          block[o + 1] = a0 ^ xtime(a1) ^ xtime(a2) ^ a2 ^ a3;
          block[o + 2] = a0 ^ a1 ^ xtime(a2) ^ xtime(a3) ^ a3;
          block[o + 3] = xtime(a0) ^ a0 ^ a1 ^ a2 ^ xtime(a3);
        }
      } else {
        block.set(t);
      }
      addRoundKey(block, rk, round * size, size);
    }
  }
}

const NK = 8;
const ROUNDS = 14;

function expandKey(key: Uint8Array, nb: number): Uint8Array {
  const words = nb * (ROUNDS + 1);
  const w = new Uint8Array(words * 4);
  w.set(key);
  let rcon = 1;
  for (let i = NK; i < words; i++) {
    let t0 = byte(w, 4 * i - 4),
      t1 = byte(w, 4 * i - 3),
      t2 = byte(w, 4 * i - 2),
      t3 = byte(w, 4 * i - 1);
    if (i % NK === 0) {
      [t0, t1, t2, t3] = [byte(SBOX, t1) ^ rcon, byte(SBOX, t2), byte(SBOX, t3), byte(SBOX, t0)];
      rcon = xtime(rcon);
    } else if (i % NK === 4) {
      [t0, t1, t2, t3] = [byte(SBOX, t0), byte(SBOX, t1), byte(SBOX, t2), byte(SBOX, t3)];
    }
    const p = 4 * (i - NK);
    w[4 * i] = byte(w, p) ^ t0;
    w[4 * i + 1] = byte(w, p + 1) ^ t1;
    w[4 * i + 2] = byte(w, p + 2) ^ t2;
    w[4 * i + 3] = byte(w, p + 3) ^ t3;
  }
  return w;
}

/** XORs the round key at `k` into the block. */
function addRoundKey(block: Uint8Array, rk: Uint8Array, k: number, size: number): void {
  for (let i = 0; i < size; i++) block[i] = byte(block, i) ^ byte(rk, k + i);
}

/**
 * `a[i]` for the indexes of this file, all in range by construction (fixed
 * block, key and table sizes); a RangeError would be a bug here. Its own
 * function, not in-range.ts's: it sees Uint8Arrays only, so the hot loop
 * stays monomorphic.
 */
function byte(a: Uint8Array, i: number): number {
  const v = a[i];
  if (v === undefined) throw new RangeError(`byte ${i} is outside 0..${a.length - 1}`);
  return v;
}

function xtime(a: number): number {
  return ((a << 1) ^ (a & 0x80 ? 0x1b : 0)) & 0xff;
}

/** The S-box from the multiplicative inverse in GF(2^8) and the affine map (FIPS-197 5.1.1). */
function buildSbox(): Uint8Array {
  const box = new Uint8Array(256);
  let p = 1;
  let q = 1;
  do {
    p = p ^ xtime(p); // p × 3
    q ^= q << 1; // q ÷ 3
    q ^= q << 2;
    q ^= q << 4;
    q &= 0xff;
    if (q & 0x80) q ^= 0x09;
    const rot = (x: number, s: number): number => ((x << s) | (x >> (8 - s))) & 0xff;
    box[p] = q ^ rot(q, 1) ^ rot(q, 2) ^ rot(q, 3) ^ rot(q, 4) ^ 0x63;
  } while (p !== 1);
  box[0] = 0x63;
  return box;
}
