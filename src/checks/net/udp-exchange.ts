/**
 * One request and its reply over UDP, for check_dns and check_ntp_offset.
 * The socket is connected to the server, so only the server's datagrams
 * arrive and an ICMP port-unreachable comes back as ECONNREFUSED at once
 * instead of waiting for the deadline. `accept` sees each datagram and
 * returns the result, or undefined to keep waiting (a reply that is not
 * ours). The socket closes on the answer, an error, or the signal.
 */
import { createSocket } from 'node:dgram';

export function udpExchange<T>(
  address: string,
  family: 4 | 6,
  port: number,
  signal: AbortSignal,
  request: () => Buffer,
  accept: (msg: Buffer) => T | undefined,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const sock = createSocket(family === 6 ? 'udp6' : 'udp4');
    const close = (): void => {
      signal.removeEventListener('abort', close);
      try {
        sock.close();
      } catch {
        // already closed
      }
    };
    signal.addEventListener('abort', close, { once: true });
    sock.on('error', (err) => {
      close();
      reject(err);
    });
    sock.on('message', (msg) => {
      const result = accept(msg);
      if (result === undefined) return;
      close();
      resolve(result);
    });
    sock.connect(port, address, () => {
      sock.send(request(), (err) => {
        if (err) {
          close();
          reject(err);
        }
      });
    });
  });
}
