/**
 * How every listener closes (a stop, or the old listener after a move): it
 * stops accepting at once, asks its open connections to finish (`drain`:
 * nothing more is read; answers in flight are written), waits until none is
 * left or the grace has passed (monotonic clock), then cuts what is left
 * (`cut`) and resolves once the server has closed.
 */
import type { Server } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** Time answers in flight get when a listener closes, before their connections are cut. */
export const CLOSE_GRACE_MS = 2000;

export interface GracefulClose {
  server: Server;
  /** Connections open now. */
  open: () => number;
  drain: () => void;
  cut: () => void;
  graceMs?: number;
}

export async function closeGracefully(c: GracefulClose): Promise<void> {
  const closed = new Promise<void>((resolve) => c.server.close(() => resolve()));
  c.drain();
  const deadline = performance.now() + (c.graceMs ?? CLOSE_GRACE_MS);
  while (c.open() > 0 && performance.now() < deadline) await sleep(20);
  c.cut();
  await closed;
}
