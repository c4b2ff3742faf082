/**
 * NSCA 2.x encryption, byte for byte as nsca's src/utils.c with libmcrypt:
 *
 * - none (0): the packet as it is.
 * - xor (1): every byte XORed with the server's 128-byte IV (repeating),
 *   then with the password (repeating); restarts at byte 0 for each packet.
 * - libmcrypt ciphers in mode "cfb" (8-bit cipher feedback, one byte at a
 *   time): the IV is the first block-size bytes of the transmitted IV, the
 *   key the password cut or NUL-padded to the cipher's largest key size.
 *   The cipher state runs on across the packets of one connection, as
 *   send_nsca keeps one crypt instance per connection.
 *   des (2): 8-byte key; node:crypto's OpenSSL 3 keeps single DES in the
 *   legacy provider, so it runs as DES-EDE3 with the key three times
 *   (K,K,K), which is single DES. 3des (3): 24-byte key, DES-EDE3.
 *   rijndael-128 (14): 32-byte key, which is AES-256. rijndael-192 (15)
 *   and rijndael-256 (16): blocks of 24 and 32 bytes that AES lacks
 *   (rijndael.ts).
 *
 * The other libmcrypt ciphers of nsca (CAST, Blowfish, Twofish, Serpent,
 * GOST, ...) are not offered: OpenSSL 3 has them in its legacy provider or
 * not at all.
 *
 * Names: `aes` and `aes256` are what NSClient++ sends under those names
 * (libs/nscpcrypt: Crypto++ AES, 16-byte block, 32-byte key, 8-bit CFB),
 * which is byte for byte nsca's rijndael-128 (method 14): NSClient++'s
 * `encryption = aes` pairs with `decryption_method = 14`, as its
 * documentation says. NSClient++'s aes128 and aes192 (AES with a 16- or
 * 24-byte key) match no nsca method (libmcrypt always pads the key to 32
 * bytes) and are not offered. rijndael192 and rijndael256 are nsca's
 * methods 15 and 16 (blocks of 24 and 32 bytes).
 */
import { createCipheriv } from 'node:crypto';
import { RijndaelEncryptor } from './rijndael.js';
import { inRange } from '../../in-range.js';

export const TRANSMITTED_IV_SIZE = 128;

/** Encrypts the packets of one connection in place, in order. */
export type PacketEncryptor = (packet: Buffer) => void;

/** The encryptor for one connection: `iv` is the 128 bytes the server sent. */
export function packetEncryptor(method: number, password: string, iv: Buffer): PacketEncryptor {
  const pass = Buffer.from(password, 'latin1');
  switch (method) {
    case 0:
      return () => {};
    case 1:
      return (packet) => {
        // iv has TRANSMITTED_IV_SIZE bytes (packet.ts reads exactly that many).
        for (const [i, b] of packet.entries()) packet[i] = b ^ inRange(iv, i % TRANSMITTED_IV_SIZE);
        if (pass.length > 0) for (const [i, b] of packet.entries()) packet[i] = b ^ inRange(pass, i % pass.length);
      };
    case 2: {
      const k = keyOf(pass, 8);
      return streamCipher('des-ede3-cfb8', Buffer.concat([k, k, k]), iv.subarray(0, 8));
    }
    case 3:
      return streamCipher('des-ede3-cfb8', keyOf(pass, 24), iv.subarray(0, 8));
    case 14:
      return streamCipher('aes-256-cfb8', keyOf(pass, 32), iv.subarray(0, 16));
    case 15:
    case 16:
      return rijndaelCfb8(method === 15 ? 24 : 32, keyOf(pass, 32), iv);
    default:
      throw new Error(`NSCA encryption method ${method} is not supported`);
  }
}

/** The password cut or NUL-padded to `size` bytes (nsca: bzero, then strncpy). */
function keyOf(pass: Buffer, size: number): Buffer {
  const key = Buffer.alloc(size);
  pass.copy(key, 0, 0, Math.min(size, nulAt(pass)));
  return key;
}

/** strncpy stops at a NUL. */
function nulAt(b: Buffer): number {
  const i = b.indexOf(0);
  return i === -1 ? b.length : i;
}

function streamCipher(name: string, key: Buffer, iv: Buffer): PacketEncryptor {
  const cipher = createCipheriv(name, key, iv);
  return (packet) => {
    const out = cipher.update(packet);
    out.copy(packet);
  };
}

/** 8-bit CFB over a Rijndael block: each byte is XORed with the first byte of E(register), which then shifts in the cipher byte. */
function rijndaelCfb8(blockBytes: 24 | 32, key: Buffer, iv: Buffer): PacketEncryptor {
  const cipher = new RijndaelEncryptor(blockBytes, key);
  const register = Uint8Array.from(iv.subarray(0, blockBytes));
  const out = new Uint8Array(blockBytes);
  return (packet) => {
    for (const [i, b] of packet.entries()) {
      out.set(register);
      cipher.encryptBlock(out);
      const c = b ^ inRange(out, 0);
      packet[i] = c;
      register.copyWithin(0, 1);
      register[blockBytes - 1] = c;
    }
  };
}
