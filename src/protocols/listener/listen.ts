/**
 * Binding a listener, the same way for every server: `host` empty binds
 * every address, port 0 lets the system pick one. A failure (the address is
 * in use, not local, not permitted) rejects with the server's own LISTEN
 * error naming `host:port` and the system's reason (which carries the code,
 * EADDRINUSE and the like, that a move looks for), with the system error as
 * its cause; once bound, later errors are the server's to log.
 *
 * A numeric address (`127.0.0.1`, `::1`) is bound with `net.BoundSocket`
 * (Node 24.19 and later) and the bound socket handed to listen(): listen()
 * given a host looks it up even when it is an address, and its check of the
 * answer for an IPv6 link-local address compiles node's IPv6 pattern, about
 * 2.5 ms of every start (docs/benchmarks.md). A name (`localhost`), every
 * address (empty) or an older node take listen()'s own way.
 */
import * as net from 'node:net';
import { getSystemErrorMessage } from 'node:util';
import { AgentError, errorMessage, type ErrorCode } from '../../errors.js';

export function listenOn(server: net.Server, host: string | undefined, port: number, code: ErrorCode): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void =>
      reject(new AgentError(code, [`${host || '*'}:${port}`, errorMessage(err)], { cause: err }));
    let handle: net.BoundSocket | undefined;
    try {
      handle = boundSocket(host, port);
    } catch (err) {
      onError(bindError(err, `${host}:${port}`));
      return;
    }
    server.once('error', onError);
    try {
      server.listen(handle ? { handle } : { port, ...(host ? { host } : {}) }, () => {
        server.off('error', onError);
        resolve();
      });
    } catch (err) {
      // listen() refused before adopting the socket (a server already listening): it must not keep the port.
      server.off('error', onError);
      handle?.[Symbol.dispose]();
      reject(err instanceof Error ? err : new Error(String(err)));
    }
  });
}

/** A socket bound to `host:port` when `host` is a numeric address and node has BoundSocket; else undefined. */
function boundSocket(host: string | undefined, port: number): net.BoundSocket | undefined {
  const Bound = (net as Partial<typeof net>).BoundSocket;
  if (!host || Bound === undefined || net.isIP(host) === 0) return undefined;
  return new Bound({ host, port });
}

/**
 * BoundSocket's error in the words listen() uses for the same failure (`bind EADDRINUSE:
 * address already in use 127.0.0.1:5666`, where BoundSocket says `bind EADDRINUSE
 * 127.0.0.1:5666`), its code kept for the advice that reads it.
 */
function bindError(err: unknown, where: string): Error {
  if (!(err instanceof Error)) return new Error(String(err));
  const e: NodeJS.ErrnoException = err;
  if (typeof e.errno === 'number' && e.code !== undefined)
    e.message = `${e.syscall ?? 'bind'} ${e.code}: ${getSystemErrorMessage(e.errno)} ${where}`;
  return e;
}
