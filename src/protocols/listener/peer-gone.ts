/**
 * The per-connection AbortSignal every listener hands to the queries of a
 * connection: aborted when the connection closes (the peer went away, or
 * the listener cut it), so the script of a query whose peer is gone is
 * killed and its probe's socket closed, on NRPE and the agent protocol as
 * on the web.
 */
import type { Socket } from 'node:net';

export function peerGone(socket: Socket, peer: string): AbortSignal {
  const gone = new AbortController();
  if (socket.destroyed) gone.abort(new Error(`${peer} closed the connection`));
  else socket.once('close', () => gone.abort(new Error(`${peer} closed the connection`)));
  return gone.signal;
}
