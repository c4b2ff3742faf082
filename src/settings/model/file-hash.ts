/**
 * The one hash of settings files: sha256 in hex of the bytes (a string
 * counts as its UTF-8 bytes). It names a file's content in the status
 * (fileHash), in an edit's expected hash and in an include tree's hash.
 * Node's one-shot hash(), not a Hash object: the first createHash of a
 * process costs 0.4-0.8 ms, hash() 0.2-0.3 (a start hashes its settings
 * file before anything else hashes; issue 41).
 */
import { hash } from 'node:crypto';

export function hashBytes(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}
