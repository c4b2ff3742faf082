/**
 * Ceiling of the remote-server benchmark, in its own process: a bare Node
 * TLS server with the RemoteServer's default TLS options (buildServerTls:
 * anonymous suites, anonymous ECDH preferred, TLS 1.2) that reads one NRPE
 * v3/v4 request packet and answers a fixed, precomputed v4 response
 * `OK: fine`, then closes, as NRPE does per connection. No parsing beyond
 * the length, no CRC check, no query: what is left is the handshake and the
 * socket. Prints `listening <port>` on 127.0.0.1.
 */
import { createServer } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { encodePacket, RESPONSE_PACKET } from '../../../src/protocols/nrpe/packet.js';
import { buildServerTls } from '../../../src/protocols/nrpe/tls.js';

const answer = encodePacket({ version: 4, type: RESPONSE_PACKET, result: 0, text: 'OK: fine' });
const server = createServer(buildServerTls({ allowedCiphers: '' }), (socket) => {
  let got = 0;
  let need = 16;
  const chunks: Buffer[] = [];
  socket.on('data', (d: Buffer) => {
    chunks.push(d);
    got += d.length;
    if (need === 16 && got >= 16) need = 16 + Buffer.concat(chunks).readInt32BE(12);
    if (got >= need) socket.end(answer);
  });
  socket.on('error', () => socket.destroy());
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
