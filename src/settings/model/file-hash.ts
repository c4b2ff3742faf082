/**
 * The one hash of settings files: sha256 in hex of the bytes (a string
 * counts as its UTF-8 bytes). It names a file's content in the status
 * (fileHash), in an edit's expected hash and in an include tree's hash.
 */
import { createHash } from 'node:crypto';

export function hashBytes(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
