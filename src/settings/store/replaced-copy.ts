/**
 * Writes that reach the copy an atomic rewrite replaced. A writer that
 * writes in place (`echo >> agent.ini`, an editor that saves in place) and
 * opened the file before our rename writes into the inode the rename took
 * the name from: its text is in no file any more. The identity check just
 * before the rename (atomic-rewrite.ts) sees every write finished by then;
 * this looks after the rename: it waits for the processes that still hold
 * the replaced inode open for writing to close it (settings/store/open-writers.ts, bounded),
 * then compares that inode, through the descriptor the rewrite read it
 * with, with the identity it had when it was read. A difference means a
 * write landed there: the caller puts that copy back and reads again, so
 * the edit is applied on top of it (or refused), never over it.
 */
import type { FileHandle } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { openWritersAsync } from './open-writers.js';
import { contentIdentityOf } from './file-identity.js';

/** How long writers still holding the replaced copy are waited for. */
const WRITER_WAIT_MS = 2000;
const WRITER_POLL_MS = 10;

/**
 * The replaced copy's bytes when something wrote to it after it was read
 * (`identity`: its contentIdentityOf then); undefined when nothing did.
 */
export async function writtenAfterRead(old: FileHandle, identity: string): Promise<Buffer | undefined> {
  const before = await old.stat({ bigint: true });
  const id = { dev: Number(before.dev), ino: Number(before.ino) };
  const deadline = performance.now() + WRITER_WAIT_MS;
  while (performance.now() < deadline && ((await openWritersAsync(id)) ?? []).length > 0) await sleep(WRITER_POLL_MS);
  const now = await old.stat({ bigint: true });
  if (contentIdentityOf(now) === identity) return undefined;
  const bytes = Buffer.alloc(Number(now.size));
  let at = 0;
  while (at < bytes.length) {
    const { bytesRead } = await old.read(bytes, at, bytes.length - at, at);
    if (bytesRead === 0) break;
    at += bytesRead;
  }
  return bytes.subarray(0, at);
}
