/**
 * Binding a listener, the same way for every server: `host` empty binds
 * every address, port 0 lets the system pick one. A failure (the address is
 * in use, not local, not permitted) rejects with the server's own LISTEN
 * error naming `host:port` and the system's reason (which carries the code,
 * EADDRINUSE and the like, that a move looks for), with the system error as
 * its cause; once bound, later errors are the server's to log.
 */
import type { Server } from 'node:net';
import { AgentError, errorMessage, type ErrorCode } from '../../errors.js';

export function listenOn(server: Server, host: string | undefined, port: number, code: ErrorCode): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void =>
      reject(new AgentError(code, [`${host || '*'}:${port}`, errorMessage(err)], { cause: err }));
    server.once('error', onError);
    server.listen({ port, ...(host ? { host } : {}) }, () => {
      server.off('error', onError);
      resolve();
    });
  });
}
