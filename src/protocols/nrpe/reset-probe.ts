/** The second probe of a failed TLS handshake with an NRPE server (the first is anonymous-probe.ts): why it reset us. */
import * as net from 'node:net';
import type { ProbeTarget } from './anonymous-probe.js';

/**
 * Why a server reset our TLS handshake. A server that refuses our address
 * (NRPE's allowed_hosts, our allowed hosts) closes a new connection at once
 * without reading; a server in plain mode keeps it open, waiting for a
 * packet. A plain connection that sends nothing, open for at most 300 ms,
 * tells which; it never sends a byte.
 */
export function probeReset(o: ProbeTarget, deadline: number): Promise<string> {
  const refused = 'the server closes connections from our address at once (is our address in its allowed hosts?)';
  const plain = 'the server waits for a plain NRPE packet (is it in plain mode? try --no-ssl)';
  const either = 'our address is not in its allowed hosts, or the server is in plain mode (then try --no-ssl)';
  return new Promise((resolve) => {
    const socket = net.connect({ host: o.host, port: o.port });
    let connected = false;
    let waited = false;
    const timer = setTimeout(
      () => {
        waited = true;
        socket.destroy();
      },
      Math.max(0, Math.min(300, deadline - performance.now() - 50)),
    );
    socket.once('connect', () => (connected = true));
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(!connected ? either : waited ? plain : refused);
    });
  });
}
