/**
 * A file's identity from a bigint stat: which inode it is and what it holds
 * as far as its times tell. Settings edits (atomic-rewrite.ts,
 * replaced-copy.ts) and reloads (settings/store/read-settings.ts) compare them.
 */
import type { BigIntStats } from 'node:fs';

/** Device, inode, size and change times: another file, or the same file written since, differs. */
export function identityOf(s: BigIntStats): string {
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

/**
 * What a write changes of an inode: its size and modification time. Not
 * its change time, which the rename moves too (the replaced inode loses
 * its link).
 */
export function contentIdentityOf(s: BigIntStats): string {
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}`;
}
