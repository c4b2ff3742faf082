/**
 * Stored web passwords: plain text or `pbkdf2-sha256$<iterations>$<salt hex>$<hash hex>`
 * (the form `config-agent web add-user` writes), and their verification.
 *
 * Contract of `verifyPassword`:
 * - every call costs one pbkdf2 run: with the stored hash's iterations for a
 *   hashed password, with DEFAULT_ITERATIONS (the iterations `hashPassword`
 *   writes) for a plain, empty or malformed one and for an unknown user
 *   (pass `undefined`: a decoy salt is used), so timing does not tell which
 *   users exist;
 * - comparisons are constant time (`timingSafeEqual` on equal-length digests);
 * - an empty stored password, an empty candidate and a malformed hash never
 *   verify;
 * - pbkdf2 runs on libuv's thread pool (async), never on the event loop.
 */
import { pbkdf2, randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { promisify } from 'node:util';

const pbkdf2Async = promisify(pbkdf2);

export const HASH_PREFIX = 'pbkdf2-sha256';
/** OWASP's figure for PBKDF2-HMAC-SHA256 (Password Storage Cheat Sheet, 2023+); stored hashes keep their own count. */
export const DEFAULT_ITERATIONS = 600_000;
/** Above this a stored hash is refused (a hostile settings value must not stall the server). */
const MAX_ITERATIONS = 10_000_000;
const SALT_BYTES = 16;
const KEY_BYTES = 32;

/** Hash a password for storage (`pbkdf2-sha256$600000$<salt>$<hash>`). */
export async function hashPassword(password: string, iterations = DEFAULT_ITERATIONS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await pbkdf2Async(password, salt, iterations, KEY_BYTES, 'sha256');
  return `${HASH_PREFIX}$${iterations}$${salt.toString('hex')}$${key.toString('hex')}`;
}

/** True when the stored value has the hash shape (it may still be malformed inside). */
export function isHashed(stored: string): boolean {
  return stored.startsWith(`${HASH_PREFIX}$`);
}

/**
 * Check `candidate` against a stored password (plain or hashed). `stored`
 * undefined means "no such user": the decoy is checked and false returned.
 */
export async function verifyPassword(candidate: string, stored: string | undefined): Promise<boolean> {
  const parsed = stored !== undefined && isHashed(stored) ? parseHash(stored) : undefined;
  if (parsed) {
    const key = await pbkdf2Async(candidate, parsed.salt, parsed.iterations, parsed.hash.length, 'sha256');
    const same = timingSafeEqual(key, parsed.hash);
    return same && candidate.length > 0;
  }
  // Plain text, empty, malformed hash or unknown user: pay the same pbkdf2
  // price against the decoy, then compare digests in constant time.
  const d = await decoy();
  await pbkdf2Async(candidate, d.salt, DEFAULT_ITERATIONS, KEY_BYTES, 'sha256');
  if (stored === undefined || stored === '' || isHashed(stored)) return false;
  const same = timingSafeEqual(digest(candidate), digest(stored));
  return same && candidate.length > 0;
}

/** Parse the hash form; undefined when malformed. */
export function parseHash(stored: string): { iterations: number; salt: Buffer; hash: Buffer } | undefined {
  const parts = stored.split('$');
  if (parts.length !== 4 || parts[0] !== HASH_PREFIX) return undefined;
  const [, iterText, saltHex, hashHex] = parts as [string, string, string, string];
  if (!/^[1-9][0-9]{0,8}$/.test(iterText)) return undefined;
  const iterations = Number(iterText);
  if (iterations > MAX_ITERATIONS) return undefined;
  if (!/^([0-9a-fA-F]{2}){1,64}$/.test(saltHex) || !/^([0-9a-fA-F]{2}){16,64}$/.test(hashHex)) return undefined;
  return { iterations, salt: Buffer.from(saltHex, 'hex'), hash: Buffer.from(hashHex, 'hex') };
}

// ---------------------------------------------------------------- helpers

let decoyPromise: Promise<{ salt: Buffer }> | undefined;

/** A per-process random salt for the decoy run. */
function decoy(): Promise<{ salt: Buffer }> {
  decoyPromise ??= Promise.resolve({ salt: randomBytes(SALT_BYTES) });
  return decoyPromise;
}

/** Fixed-length digest so that `timingSafeEqual` does not leak the length. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
